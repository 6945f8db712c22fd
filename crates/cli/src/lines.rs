//! Lines of standard input, bounded: the engine protocol and the terminal game read their
//! commands through [`read_line`], so no line, however long, takes more than
//! [`MAX_LINE_BYTES`] of memory.

use std::io::{BufRead, Read};

/// Longest input line read, in bytes; a longer one is answered with an error and skipped.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Reads one line (without its end) of at most [`MAX_LINE_BYTES`]: `Ok(None)` at the end of
/// the input, `Some(Err(..))` for a line too long (skipped to its end) or not UTF-8.
pub fn read_line(
    input: &mut impl BufRead,
    buffer: &mut Vec<u8>,
) -> std::io::Result<Option<Result<String, String>>> {
    buffer.clear();
    let read = input
        .by_ref()
        .take(MAX_LINE_BYTES as u64 + 1)
        .read_until(b'\n', buffer)?;
    if read == 0 {
        return Ok(None);
    }
    if buffer.last() != Some(&b'\n') && buffer.len() > MAX_LINE_BYTES {
        // Skip the rest of the line, a bounded piece at a time.
        let mut skipped = buffer.len();
        loop {
            buffer.clear();
            let n = input
                .by_ref()
                .take(MAX_LINE_BYTES as u64)
                .read_until(b'\n', buffer)?;
            skipped += n;
            if n == 0 || buffer.last() == Some(&b'\n') {
                break;
            }
        }
        return Ok(Some(Err(format!(
            "line too long ({skipped} bytes; at most {MAX_LINE_BYTES}): ignored"
        ))));
    }
    while matches!(buffer.last(), Some(b'\n' | b'\r')) {
        buffer.pop();
    }
    Ok(Some(match std::str::from_utf8(buffer) {
        Ok(text) => Ok(text.to_string()),
        Err(e) => Err(format!(
            "the line is not UTF-8 (bad byte at {}): ignored",
            e.valid_up_to()
        )),
    }))
}
