#!/usr/bin/env python3
"""Middlegame positions for `fanorona solve --positions FILE`: from games of a three-turn
alpha-beta with the learned evaluation after a few random turns, one position a game: the
first turn start with at most N stones, N drawn between --min and --max for each game (a game
that jumps below --min or ends first gives none). Needs the Python package (docs/python.md).

    scripts/solve-sample.py --count 40 --min 8 --max 12 --seed 44 > positions.txt
"""

import argparse
import random

import fanorona


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--min", type=int, default=8)
    ap.add_argument("--max", type=int, default=12)
    ap.add_argument("--seed", type=int, default=44)
    ap.add_argument("--random-turns", type=int, default=6)
    ap.add_argument("--player", default="alphabeta:depth=3,eval=learned")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    player = fanorona.Player(args.player, seed=args.seed)
    found = 0
    while found < args.count:
        game = fanorona.Game()
        player.new_game()
        turn = 0
        most = rng.randint(args.min, args.max)
        while not game.is_over:
            white, black = game.stones
            if white + black <= most:
                if white + black >= args.min:
                    print(game.fen, flush=True)
                    found += 1
                break
            if turn < args.random_turns:
                game.play_turn(rng.choice(game.legal_turns()))
            else:
                game.play_turn(player.choose(game).turn)
            turn += 1


if __name__ == "__main__":
    main()
