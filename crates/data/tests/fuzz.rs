//! Fuzz target for the checksummed container every project file uses: mutated containers are
//! refused with an error (never a panic), and a container that still decodes is the original.

use std::path::Path;

use fanorona_data::container::{decode, encode};
use fanorona_testkit::fuzz;

const MAGIC: &[u8; 8] = b"FNRNTEST";

#[test]
fn fuzz_mutated_containers_are_refused_or_unchanged() {
    let payloads: [&[u8]; 3] = [b"", b"a small payload", &[0xAB; 300]];
    let seeds: Vec<Vec<u8>> = payloads.iter().map(|p| encode(MAGIC, 3, p)).collect();
    fuzz::run(
        "container",
        &seeds,
        &[MAGIC, b"\0\0\0\0"],
        20_000,
        |bytes| {
            if let Ok(payload) = decode(Path::new("fuzz.bin"), bytes, MAGIC, 3) {
                // The CRC-32 catches every edit of up to 32 bits; longer ones may pass only by
                // chance. What decodes must re-encode to the same bytes.
                assert_eq!(encode(MAGIC, 3, payload), bytes);
            }
        },
    );
}
