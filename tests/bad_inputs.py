"""The bad-input case table: every subcommand, every kind of user mistake.

Shared by tests/test_cli_bad_input.py (each case must exit 2 with exactly one line on
stderr naming the culprit, no traceback) and tools/probe_bad_inputs.py (which counts
clean / traceback / exit-0 / hang outcomes, on any checkout, for the closing note).

A case is (id, category, argv, culprit): ``{T}`` in argv is the fixture folder built by
:func:`build`; ``culprit`` is a text the one error line must contain (case-insensitive).
Nothing here imports simkit at module level, so the probe can point it at any checkout.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Case:
    id: str
    category: str
    argv: tuple[str, ...]
    culprit: str

    def args(self, tmp: Path) -> list[str]:
        return [a.replace("{T}", str(tmp)) for a in self.argv]


CASES: list[Case] = []


def case(category: str, culprit: str, *argv: str, id: str | None = None) -> None:
    cid = id or f"{category}:{' '.join(argv)}"[:120]
    CASES.append(Case(cid, category, tuple(argv), culprit))


# --- flags: values out of range or of the wrong type -----------------------------------------
C = ("combat", "--force", "infantry=2", "--vs", "shoggoth")
case("flag", "--games", *C, "--games", "0")
case("flag", "--games", *C, "--games", "-5")
case("flag", "--games", *C, "--games", "many")
case("flag", "--jobs", *C, "--jobs", "0", "--method", "mc")
case("flag", "--state-budget", *C, "--state-budget", "0")
case("flag", "--state-budget", *C, "--state-budget", "-1")
case("flag", "--port-strength", *C, "--port-strength", "-2")
case("flag", "--old-one-damage", *C, "--old-one-damage", "-1")
case("flag", "--method", *C, "--method", "fast")
case("flag", "--withdraw", *C, "--withdraw", "sometimes")
case("flag", "--withdraw", *C, "--withdraw", "sanity:x")
case("flag", "--allocate", *C, "--allocate", "random")
case("flag", "dragon", *C, "--allocate", "protect:dragon")
case("flag", "--seen", *C, "--seen", "1,x")
case("flag", "--seen", *C, "--seen", "999")
case("flag", "--seen", *C, "--seen", "3,3")
case("flag", "gandalf", *C, "--personality", "gandalf")
case("flag", "dragon", "combat", "--force", "dragon=2", "--vs", "shoggoth")
case("flag", "infantry", "combat", "--force", "infantry=-1", "--vs", "shoggoth")
case("flag", "infantry", "combat", "--force", "infantry=1.5", "--vs", "shoggoth")
case("flag", "--force", "combat", "--force", "", "--vs", "shoggoth")
case("flag", "kraken", "combat", "--force", "infantry=2", "--vs", "kraken")
case("flag", "--vs", "combat", "--force", "infantry=2", "--vs", "")
case("flag", "--vs", "combat", "--force", "infantry=2")
case("flag", "--force", "combat", "--vs", "shoggoth")
case("flag", "--bogus", *C, "--bogus")
case("flag", "--max-per-type", "odds", "--max-per-type", "-1", "--out", "{T}/o.parquet")
case("flag", "--max-per-type", "odds", "--max-per-type", "99", "--out", "{T}/o.parquet")
case("flag", "--jobs", "odds", "--jobs", "0", "--out", "{T}/o.parquet")
case("flag", "--max-per-type", "odds", "--max-per-type", "0", "--out", "{T}/o.parquet")
case("flag", "--max-per-type", "odds", "best", "--vs", "zombie", "--max-per-type", "0")
case("flag", "--max-per-type", "demo", "--out", "{T}/demo_new", "--max-per-type", "0")
case("flag", "--out", "odds", "--max-per-type", "1")
case("flag", "kraken", "odds", "--vs", "kraken", "--out", "{T}/o.parquet")
case("flag", "--min-p", "odds", "best", "--vs", "shoggoth", "--min-p", "1.5")
case("flag", "--min-p", "odds", "best", "--vs", "shoggoth", "--min-p", "-0.1")
case("flag", "--copies", "odds", "best", "--vs", "shoggoth", "--copies", "3")
case(
    "flag", "--top", "odds", "best", "--vs", "shoggoth", "--top", "0", "--table", "{T}/odds.parquet"
)
case("flag", "kraken", "odds", "best", "--vs", "kraken")
case("flag", "--max-per-type", "odds", "best", "--vs", "shoggoth", "--max-per-type", "99")
case("flag", "--players", "board", "show", "--out", "{T}/b.png", "--players", "-1")
case(
    "flag",
    "--players",
    "board",
    "show",
    "--out",
    "{T}/b.png",
    "--setup-seed",
    "1",
    "--players",
    "9",
)
case("flag", "atlantis", "board", "show", "--out", "{T}/b.png", "--map", "atlantis")
case("flag", "--mode", "simulate", "--out", "{T}/sim", "--mode", "chess")
case("flag", "--games", "simulate", "--out", "{T}/sim", "--games", "0")
case("flag", "--jobs", "simulate", "--out", "{T}/sim", "--jobs", "0")
case("flag", "--tables", "simulate", "--out", "{T}/sim", "--tables", "summary,gossip")
case("flag", "players", "simulate", "--out", "{T}/sim", "--players", "9")
case("flag", "players", "simulate", "--out", "{T}/sim", "--players", "0")
case("flag", "genius", "simulate", "--out", "{T}/sim", "--strategies", "genius")
case(
    "flag",
    "difficulty",
    "simulate",
    "--out",
    "{T}/sim",
    "--mode",
    "solo",
    "--difficulty",
    "impossible",
)
case(
    "flag",
    "difficulty",
    "simulate",
    "--out",
    "{T}/sim",
    "--mode",
    "revenge",
    "--difficulty",
    "easy",
)
case("flag", "chess", "simulate", "--out", "{T}/sim", "--mode", "revenge", "--rules", "chess")
case("flag", "genius", "simulate", "--out", "{T}/sim", "--mode", "revenge", "--oop", "genius")
case("flag", "humans", "simulate", "--out", "{T}/sim", "--mode", "revenge", "--humans", "7")
case("flag", "--out", "simulate", "--games", "10")
case("flag", "--mode", "tune", "--out", "{T}/tune", "--mode", "chess", "--strategy", "balanced")
case(
    "flag",
    "--objective",
    "tune",
    "--out",
    "{T}/tune",
    "--mode",
    "base",
    "--strategy",
    "balanced",
    "--opponents",
    "balanced",
    "--objective",
    "glory",
)
case(
    "flag",
    "--sampler",
    "tune",
    "--out",
    "{T}/tune",
    "--mode",
    "base",
    "--strategy",
    "balanced",
    "--opponents",
    "balanced",
    "--sampler",
    "dice",
)
case(
    "flag",
    "--trials",
    "tune",
    "--out",
    "{T}/tune",
    "--mode",
    "base",
    "--strategy",
    "balanced",
    "--opponents",
    "balanced",
    "--trials",
    "0",
)
case(
    "flag",
    "--games-per-trial",
    "tune",
    "--out",
    "{T}/tune",
    "--mode",
    "base",
    "--strategy",
    "balanced",
    "--opponents",
    "balanced",
    "--games-per-trial",
    "3",
)
case(
    "flag",
    "genius",
    "tune",
    "--out",
    "{T}/tune",
    "--mode",
    "base",
    "--strategy",
    "genius",
    "--opponents",
    "balanced",
)
case("flag", "--opponents", "tune", "--out", "{T}/tune", "--mode", "base", "--strategy", "balanced")
case(
    "flag",
    "random",
    "tune",
    "--out",
    "{T}/tune",
    "--mode",
    "base",
    "--strategy",
    "random",
    "--opponents",
    "balanced",
)
case(
    "flag",
    "--content",
    "tune",
    "--out",
    "{T}/tune",
    "--mode",
    "base",
    "--strategy",
    "balanced",
    "--opponents",
    "balanced",
    "--content",
    "fanfic",
)
case("flag", "content", "simulate", "--out", "{T}/sim", "--content", "fanfic")
case(
    "flag",
    "no such strategy file",
    "simulate",
    "--out",
    "{T}/sim",
    "--strategies",
    "file:{T}/none.toml",
)
case("flag", "--game", "replay", "--seed", "1", "--game", "-1")
case("flag", "--chunk", "replay", "--seed", "1", "--game", "0", "--chunk", "-1")
case("flag", "--mode", "replay", "--seed", "1", "--game", "0", "--mode", "chess")
case("flag", "genius", "replay", "--seed", "1", "--game", "0", "--strategies", "genius")
case("flag", "--players", "replay", "--seed", "1", "--game", "0", "--players", "9")
case("flag", "--chunk", "replay", "--seed", "1", "--game", "0", "--chunk", "99999999")
case("flag", "--seed", "replay", "--game", "0")
A = ("athena", "turret", "--weapons", "cannon:3", "--defense", "2", "--ammo", "2")
case(
    "flag", "--ammo", "athena", "turret", "--weapons", "cannon:3", "--defense", "2", "--ammo", "two"
)
case(
    "flag", "--ammo", "athena", "turret", "--weapons", "cannon:3", "--defense", "2", "--ammo", "-1"
)
case("flag", "--charged", *A, "--charged", "-1")
case("flag", "--games", *A, "--method", "mc", "--games", "0")
case("flag", "--jobs", *A, "--method", "mc", "--jobs", "0")
case("flag", "--detection", *A, "--detection", "-1")
case("flag", "--detection", *A, "--detection", "99")
case("flag", "--rounds", *A, "--rounds", "-1")
case("flag", "--defense", "athena", "turret", "--weapons", "cannon:3", "--ammo", "2")
case("flag", "--defense", *A[:-2], "--defense", "-3", "--ammo", "2")
case(
    "flag",
    "--turret",
    "athena",
    "turret",
    "--weapons",
    "cannon:3",
    "--turret",
    "999",
    "--ammo",
    "2",
)
case("flag", "laser", "athena", "turret", "--weapons", "laser:3", "--defense", "2", "--ammo", "2")
case(
    "flag", "cannon", "athena", "turret", "--weapons", "cannon:99", "--defense", "2", "--ammo", "2"
)
case("flag", "cannon", "athena", "turret", "--weapons", "cannon", "--defense", "2", "--ammo", "2")
case("flag", "--weapons", "athena", "turret", "--weapons", "", "--defense", "2", "--ammo", "2")
case("flag", "--variant", *A, "--variant", "nonsense=true")
case("flag", "--variant", *A, "--variant", "ambush_draws_card=maybe")
case("flag", "--seen", *A, "--seen", "x")
case("flag", "--method", *A, "--method", "fast")
case("flag", "--grenade-use", *A, "--grenade-use", "middle")
case(
    "flag", "--jobs", "experiment", "run", "{T}/spec_ok.toml", "--out", "{T}/lake_a", "--jobs", "0"
)
case(
    "flag",
    "--backend",
    "experiment",
    "run",
    "{T}/spec_ok.toml",
    "--out",
    "{T}/lake_a",
    "--backend",
    "spark",
)
case(
    "flag",
    "--target-ci",
    "experiment",
    "run",
    "{T}/spec_ok.toml",
    "--out",
    "{T}/lake_a",
    "--target-ci",
    "0",
)
case(
    "flag",
    "--target-ci",
    "experiment",
    "run",
    "{T}/spec_ok.toml",
    "--out",
    "{T}/lake_a",
    "--target-ci",
    "0.9",
)
case(
    "flag",
    "--scheduler",
    "experiment",
    "run",
    "{T}/spec_ok.toml",
    "--out",
    "{T}/lake_a",
    "--scheduler",
    "tcp://x:1",
)
case("flag", "nope", "experiment", "summary", "{T}/lake_real", "--experiment", "nope")
case("input", "lake_real", "report", "{T}/lake_real", "--out", "{T}/r.html")
case("flag", "--max-per-type", "demo", "--out", "{T}/demo_new", "--max-per-type", "-1")
case("flag", "--max-per-type", "demo", "--out", "{T}/demo_new", "--max-per-type", "99")
case("flag", "nope", "nope")
case("flag", "nope", "experiment", "nope")

# --- NaN and infinities in flags -------------------------------------------------------------
case(
    "nan",
    "--destroy-value",
    *C,
    "--withdraw",
    "value",
    "--method",
    "exact",
    "--destroy-value",
    "nan",
)
case(
    "nan",
    "--destroy-value",
    *C,
    "--withdraw",
    "value",
    "--method",
    "exact",
    "--destroy-value",
    "inf",
)
case(
    "nan",
    "--destroy-value",
    *C,
    "--withdraw",
    "value",
    "--method",
    "exact",
    "--destroy-value",
    "-inf",
)
case(
    "nan",
    "--destroy-value",
    *C,
    "--withdraw",
    "value",
    "--method",
    "exact",
    "--destroy-value",
    "-1",
)
case("nan", "--min-p", "odds", "best", "--vs", "shoggoth", "--min-p", "nan")
case("nan", "--min-p", "odds", "best", "--vs", "shoggoth", "--min-p", "inf")
case(
    "nan",
    "--target-ci",
    "experiment",
    "run",
    "{T}/spec_ok.toml",
    "--out",
    "{T}/lake_a",
    "--target-ci",
    "nan",
)

# --- seeds: one rule everywhere (0 .. 2**63-1) -------------------------------------------------
BIG = str(2**64)
case("seed", "--seed", *C, "--method", "mc", "--seed", "-1")
case("seed", "--seed", *C, "--method", "mc", "--seed", BIG)
case("seed", "--seed", "odds", "--seed", "-1", "--out", "{T}/o.parquet")
case("seed", "--seed", "odds", "--seed", BIG, "--out", "{T}/o.parquet")
case("seed", "--seed", "simulate", "--out", "{T}/sim", "--seed", "-1")
case("seed", "--seed", "simulate", "--out", "{T}/sim", "--seed", BIG)
case("seed", "--seed", "replay", "--seed", "-1", "--game", "0")
case(
    "seed",
    "--seed",
    "tune",
    "--out",
    "{T}/tune",
    "--mode",
    "base",
    "--strategy",
    "balanced",
    "--opponents",
    "balanced",
    "--seed",
    "-1",
)
case("seed", "--seed", "replay", "--seed", BIG, "--game", "0")
case("seed", "--setup-seed", "board", "show", "--out", "{T}/b.png", "--setup-seed", "-1")
case("seed", "--setup-seed", "board", "show", "--out", "{T}/b.png", "--setup-seed", BIG)
case("seed", "--seed", *A, "--method", "mc", "--seed", "-1")
case("seed", "--seed", *A, "--method", "mc", "--seed", BIG)
case("seed", "root_seed", "experiment", "check", "{T}/spec_seed_neg.toml")

# --- contradictory flags -----------------------------------------------------------------------
case("contradiction", "--games", *C, "--method", "exact", "--games", "5000")
case("contradiction", "--seed", *C, "--method", "exact", "--seed", "3")
case("contradiction", "--jobs", *C, "--method", "exact", "--jobs", "2")
case(
    "contradiction",
    "--port-defence",
    "combat",
    "--force",
    "infantry=2",
    "--vs",
    "zombie",
    "--port-defence",
    "--port-strength",
    "4",
    "--withdraw",
    "sanity:1",
)
case("contradiction", "infantry", "combat", "--force", "infantry=1,infantry=2", "--vs", "shoggoth")
case("contradiction", "infantry", "combat", "--force", "infantry=1,Infantry=1", "--vs", "shoggoth")
case("contradiction", "--destroy-value", *C, "--destroy-value", "3")
case(
    "contradiction",
    "--data",
    "odds",
    "best",
    "--vs",
    "shoggoth",
    "--table",
    "{T}/odds.parquet",
    "--data",
    "{T}/pack_ok",
)
case(
    "contradiction",
    "--max-per-type",
    "odds",
    "best",
    "--vs",
    "shoggoth",
    "--table",
    "{T}/odds.parquet",
    "--max-per-type",
    "1",
)
case("contradiction", "--data", "data", "check", "{T}/pack_ok", "--data", "{T}/pack_ok")
case("contradiction", "--data", "data", "provenance", "{T}/pack_ok", "--data", "{T}/pack_ok")
case("contradiction", "--turret", *A, "--turret", "1")
case("contradiction", "--games", *A, "--method", "exact", "--games", "500")
case("contradiction", "--seed", *A, "--method", "exact", "--seed", "4")
case("contradiction", "--jobs", *A, "--method", "exact", "--jobs", "2")
case("contradiction", "--humans", "simulate", "--out", "{T}/sim", "--humans", "2")
case(
    "contradiction",
    "--players",
    "simulate",
    "--out",
    "{T}/sim",
    "--mode",
    "revenge",
    "--players",
    "2",
    "--humans",
    "3",
)
case("contradiction", "--difficulty", "simulate", "--out", "{T}/sim", "--difficulty", "hard")
case(
    "contradiction", "--players", "simulate", "--out", "{T}/sim", "--mode", "solo", "--players", "2"
)
case("contradiction", "--humans", "replay", "--seed", "1", "--game", "0", "--humans", "2")
case(
    "contradiction",
    "--scheduler",
    "experiment",
    "run",
    "{T}/spec_ok.toml",
    "--out",
    "{T}/lake_a",
    "--scheduler",
    "tcp://127.0.0.1:1",
)
case("contradiction", "--revenge", "board", "show", "--out", "{T}/b.png", "--revenge")
case("contradiction", "--reveal", "board", "show", "--out", "{T}/b.png", "--reveal")

# --- limits checked up front -------------------------------------------------------------------
case("limit", "--games", *C, "--method", "mc", "--games", str(10**13))
case("limit", "--state-budget", *C, "--state-budget", str(10**12))
case("limit", "--jobs", *C, "--method", "mc", "--jobs", "4096")
case("limit", "infantry", "combat", "--force", "infantry=1000000000", "--vs", "shoggoth")
case("limit", "--old-one-damage", *C, "--old-one-damage", "1000000000")
case(
    "limit",
    "--port-strength",
    "combat",
    "--force",
    "infantry=2",
    "--vs",
    "zombie",
    "--port-defence",
    "--port-strength",
    "1000000000",
)
case("limit", "--jobs", "odds", "--jobs", "4096", "--out", "{T}/o.parquet")
case("limit", "--games", "simulate", "--out", "{T}/sim", "--games", str(10**12))
case("limit", "--jobs", "simulate", "--out", "{T}/sim", "--jobs", "4096")
case("limit", "--game", "replay", "--seed", "1", "--game", str(10**15))
case("limit", "--games", *A, "--method", "mc", "--games", str(10**13))
case("limit", "--jobs", *A, "--method", "mc", "--jobs", "4096")
case(
    "limit",
    "--ammo",
    "athena",
    "turret",
    "--weapons",
    "cannon:3",
    "--defense",
    "2",
    "--ammo",
    "1000000000",
)
case("limit", "--rounds", *A, "--rounds", "1000000000")
case(
    "limit",
    "--jobs",
    "experiment",
    "run",
    "{T}/spec_ok.toml",
    "--out",
    "{T}/lake_a",
    "--jobs",
    "4096",
)
case("limit", "cells", "experiment", "check", "{T}/spec_huge_grid.toml")
case("limit", "chunks", "experiment", "check", "{T}/spec_many_chunks.toml")
case("limit", "chunk_size", "experiment", "check", "{T}/spec_big_chunk.toml")
case("limit", "seats", "experiment", "check", "{T}/spec_huge_round_robin.toml")
case("limit", "override_grid", "experiment", "check", "{T}/spec_huge_override_grid.toml")

# --- outputs: empty, wrong kind, not a regular file, OS failures --------------------------------
case("output", "--out", "odds", "--max-per-type", "1", "--out", "")
case("output", "--out", "odds", "--max-per-type", "1", "--out", "{T}/table.csv")
case("output", "--out", "odds", "--max-per-type", "1", "--out", "{T}/adir.parquet")
case("output", "--out", "odds", "--max-per-type", "1", "--out", "{T}/fifo.parquet")
case("output", "--out", "odds", "--max-per-type", "1", "--out", "{T}/null.parquet")
case("output", "--out", "odds", "--max-per-type", "1", "--out", "{T}/afile/o.parquet")
case("output", "--out", "odds", "--max-per-type", "1", "--out", "{T}/" + "x" * 300 + ".parquet")
case("output", "--out", "board", "show", "--out", "")
case("output", "--out", "board", "show", "--out", "{T}/b.jpg")
case("output", "--out", "board", "show", "--out", "{T}/adir.png")
case("output", "--out", "board", "show", "--out", "{T}/fifo.png")
case("output", "--out", "board", "show", "--out", "{T}/null.png")
case("output", "--out", "board", "show", "--out", "{T}/afile/b.png")
case("output", "--out", "board", "show", "--out", "{T}/" + "x" * 300 + ".png")
case("output", "--out", "report", "{T}/lake_real", "--out", "")
case("output", "--out", "report", "{T}/lake_real", "--out", "{T}/r.pdf")
case("output", "--out", "report", "{T}/lake_real", "--out", "{T}/adir.html")
case("output", "--out", "report", "{T}/lake_real", "--out", "{T}/null.html")
case("output", "--out", "report", "{T}/lake_real", "--out", "{T}/afile/r.html")
case("output", "--out", "simulate", "--out", "")
case("output", "--out", "simulate", "--out", "{T}/afile")
case("output", "--out", "simulate", "--out", "{T}/afile/sub")
case("output", "--out", "simulate", "--out", "{T}/null.png")
case("output", "--out", "simulate", "--out", "{T}/other_run")
case("output", "--out", "simulate", "--out", "{T}/" + "x" * 300)
case("output", "--out", "experiment", "run", "{T}/spec_ok.toml", "--out", "")
case("output", "--out", "experiment", "run", "{T}/spec_ok.toml", "--out", "{T}/afile")
case("output", "--out", "experiment", "run", "{T}/spec_ok.toml", "--out", "{T}/afile/sub")
case("output", "--out", "experiment", "run", "{T}/spec_ok.toml", "--out", "{T}/adir_full")
case("output", "--out", "experiment", "run", "{T}/spec_ok.toml", "--out", "{T}/" + "x" * 300)
case("output", "--out", "demo", "--out", "")
case("output", "--out", "demo", "--out", "{T}/afile")
case("output", "--out", "demo", "--out", "{T}/lake_parent")
case("output", "--out", "demo", "--out", "{T}/demo_foreign_report")

# --- inputs that are missing or not what they claim -------------------------------------------
case("input", "--table", "odds", "best", "--vs", "shoggoth", "--table", "{T}/missing.parquet")
case("input", "notparquet", "odds", "best", "--vs", "shoggoth", "--table", "{T}/notparquet.parquet")
case("input", "--table", "odds", "best", "--vs", "shoggoth", "--table", "{T}/adir.parquet")
case("input", "other.parquet", "odds", "best", "--vs", "shoggoth", "--table", "{T}/other.parquet")
case("input", "missing_pack", *C, "--data", "{T}/missing_pack")
case("input", "afile", *C, "--data", "{T}/afile")
case("input", "--data", *C, "--data", "")
case("input", "missing.csv", "board", "check", "{T}/missing.csv")
case("input", "adir", "board", "check", "{T}/adir")
case("input", "passwd", "board", "check", "{T}/passwd", id="content:board check passwd-like file")
case(
    "input",
    "passwd",
    "board",
    "show",
    "--out",
    "{T}/b.png",
    "--map",
    "{T}/passwd",
    id="content:board show --map passwd-like file",
)
case("input", "spec", "experiment", "check", "{T}/missing.toml")
case("input", "spec", "experiment", "check", "{T}/adir")
case("input", "spec_binary.toml", "experiment", "check", "{T}/spec_binary.toml")
case("input", "spec_bad_toml.toml", "experiment", "check", "{T}/spec_bad_toml.toml")
case("input", "spec_nan_override.toml", "experiment", "check", "{T}/spec_nan_override.toml")
case("input", "spec_inf_override.toml", "experiment", "check", "{T}/spec_inf_override.toml")
case(
    "input", "spec_nan_grid_override.toml", "experiment", "check", "{T}/spec_nan_grid_override.toml"
)
case("input", "spec_params_number.toml", "experiment", "check", "{T}/spec_params_number.toml")
case("input", "spec_grid_string.toml", "experiment", "check", "{T}/spec_grid_string.toml")
case("input", "spec_dup_force.toml", "experiment", "check", "{T}/spec_dup_force.toml")
case("input", "spec_bad_data.toml", "experiment", "check", "{T}/spec_bad_data.toml")
case("input", "spec", "experiment", "run", "{T}/missing.toml", "--out", "{T}/lake_a")
case("input", "lake", "experiment", "verify", "{T}/missing_lake")
case("input", "afile", "experiment", "verify", "{T}/afile")
case("input", "manifest", "experiment", "verify", "{T}/lake_bad_manifest")
case("input", "manifest", "experiment", "summary", "{T}/lake_bad_manifest")
case("input", "manifest", "experiment", "verify", "{T}/lake_list_manifest")
case("input", "missing_lake", "experiment", "summary", "{T}/missing_lake")
case("input", "missing_lake", "report", "{T}/missing_lake", "--out", "{T}/r.html")
case("input", "adir_empty", "report", "{T}/adir_empty", "--out", "{T}/r.html")
case(
    "input",
    "missing_pack",
    "athena",
    "turret",
    "--weapons",
    "cannon:3",
    "--defense",
    "2",
    "--data",
    "{T}/missing_pack",
)

# --- data packs: types, shapes, values, files ---------------------------------------------------
PACK_CASES = {  # pack folder -> culprit
    "pack_combat_number": "pack.toml",
    "pack_section_string": "pack.toml",
    "pack_unit_number": "units.toml",
    "pack_unit_string": "units.toml",
    "pack_nan_cost": "units.toml",
    "pack_inf_cost": "units.toml",
    "pack_neg_inf_cost": "units.toml",
    "pack_huge_cost": "units.toml",
    "pack_value_table": "units.toml",
    "pack_bool_capacity": "units.toml",
    "pack_oldone_number": "old_ones.toml",
    "pack_port_string": "revenge.toml",
    "pack_dup_tile": "old_one_tiles.csv",
    "pack_extra_col": "old_one_tiles.csv",
    "pack_missing_col": "old_one_tiles.csv",
    "pack_header_only_tiles": "old_one_tiles.csv",
    "pack_empty_cards": "old_one_cards.csv",
    "pack_header_only_cards": "old_one_cards.csv",
    "pack_latin1": "old_one_tiles.csv",
    "pack_bom_bad_row": "row 3",
    "pack_blank_line_row": "row 4",
    "pack_short_row": "old_one_card_rows.csv",
    "pack_long_row": "old_one_card_rows.csv",
    "pack_cards_dir": "old_one_cards.csv",
    "pack_personality_number": "personalities.toml",
    "pack_toml_latin1": "units.toml",
    "pack_deck_size_huge": "pack.toml",
    "pack_dup_card_row": "old_one_card_rows.csv",
    "pack_tile_count_huge": "old_one_tiles.csv",
    "pack_no_pack_table": "pack.toml",
    "pack_game_number": "game.toml",
}
for folder, culprit in PACK_CASES.items():
    case("datapack", culprit, "data", "check", "{T}/" + folder, id=f"datapack:data check {folder}")
for folder in ("pack_nan_cost", "pack_dup_tile", "pack_latin1"):
    case(
        "datapack",
        PACK_CASES[folder],
        *C,
        "--data",
        "{T}/" + folder,
        id=f"datapack:combat --data {folder}",
    )
    case(
        "datapack",
        PACK_CASES[folder],
        "simulate",
        "--out",
        "{T}/sim",
        "--data",
        "{T}/" + folder,
        id=f"datapack:simulate --data {folder}",
    )
case("datapack", "units.toml", "data", "provenance", "{T}/pack_unit_number")
case("datapack", "units.toml", "odds", "--data", "{T}/pack_inf_cost", "--out", "{T}/o.parquet")
case(
    "datapack", "units.toml", "replay", "--seed", "1", "--game", "0", "--data", "{T}/pack_nan_cost"
)
case(
    "datapack",
    "units.toml",
    "board",
    "show",
    "--out",
    "{T}/b.png",
    "--setup-seed",
    "1",
    "--data",
    "{T}/pack_nan_cost",
)
case("datapack", "units.toml", "demo", "--out", "{T}/demo_new", "--data", "{T}/pack_nan_cost")

MAP_CASES = {
    "map_dup_hex": "hex",
    "map_latin1": "map_latin1.csv",
    "map_header_only": "no hexes",
    "map_bom_bad_row": "row 3",
    "map_extra_col": "unknown column",
    "map_missing_col": "missing column",
    "map_empty": "map_empty.csv",
    "map_nan_q": "map_nan_q.csv",
}
for name, culprit in MAP_CASES.items():
    case("map", culprit, "board", "check", "{T}/" + name + ".csv", id=f"map:board check {name}")

ATHENA_CASES = {
    "athena_number_deck": "pack.toml",
    "athena_string_turrets": "turrets.toml",
    "athena_nan_value": "pack.toml",
    "athena_latin1_cards": "outcome_cards.csv",
    "athena_bom_bad_row": "row 3",
    "athena_extra_col": "outcome_cards.csv",
    "athena_header_only": "outcome_cards.csv",
    "athena_dup_row": "outcome_cards.csv",
}
for name, culprit in ATHENA_CASES.items():
    case(
        "athena-pack",
        culprit,
        "athena",
        "check",
        "--data",
        "{T}/" + name,
        id=f"athena-pack:athena check {name}",
    )
case("athena-pack", "pack.toml", *A, "--data", "{T}/athena_number_deck")


# --- content choices: --set, --reading, compare, data readings ---------------------------------
SIM = ("simulate", "--mode", "revenge", "--games", "10", "--out", "{T}/content_out")
case("content", "units.artillery.cost", *SIM, "--set", "units.artillery.cost=many")
case("content", "nope.x", *SIM, "--set", "nope.x=1")
case("content", "--set expects", *SIM, "--set", "units.artillery.cost")
case("content", "mythos.dholes.amount", *SIM, "--set", "mythos.dholes.amount=-1")
case("content", "given twice", *SIM, "--set", "port.oop_vp=9", "--set", "port.oop_vp=8")
case("content", "moon", *SIM, "--reading", "servitor_placement=moon")
case("content", "servitor", *SIM, "--reading", "servitor=temple")
case("content", "parameter 'unknown'", *SIM, "--unknown", "sometimes")
case("content", "world", *SIM, "--world", "-3")
case(
    "content",
    "units.airship.cost",
    "combat",
    "--force",
    "infantry=2",
    "--vs",
    "zombie",
    "--set",
    "units.airship.cost=x",
)
case(
    "content",
    "--table",
    "odds",
    "best",
    "--vs",
    "zombie",
    "--table",
    "{T}/none.parquet",
    "--set",
    "units.airship.cost=2",
)
case("content", "side b is side a", "compare", "--games", "10")
case("content", "--games", "compare", "--games", "1", "--set-b", "port.oop_vp=9")
case(
    "content", "reading.port_loss", "compare", "--games", "10", "--set-b", "reading.port_loss=maybe"
)
case("content", "not a folder", "data", "readings", "{T}/no_such_pack")
case(
    "content",
    "--set",
    "experiment",
    "run",
    "experiments/worlds_revenge.toml",
    "--out",
    "{T}/wr",
    "--set",
    "units.artillery.cost=abc",
)


# --- fixtures ---------------------------------------------------------------------------------
def _edit(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text(encoding="utf-8")
    if old not in text:
        raise AssertionError(f"fixture: {old!r} not in {path}")
    path.write_text(text.replace(old, new, count), encoding="utf-8")


def _drop_section(path: Path, name: str, replacement: str) -> None:
    text = path.read_text(encoding="utf-8")
    text = re.sub(rf"^\[{name}\]\n(?:(?!\[).*\n)*", "", text, count=1, flags=re.M)
    path.write_text(replacement + "\n" + text, encoding="utf-8")


def _append_line(path: Path, line: str) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(line + "\n")


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _pack_mutations():
    def rows(p: Path, name: str) -> Path:
        return p / name

    def dup_tile(p):
        _append_line(p / "old_one_tiles.csv", _lines(p / "old_one_tiles.csv")[1])

    def extra_col(p):
        lines = _lines(p / "old_one_tiles.csv")
        (p / "old_one_tiles.csv").write_text(
            "\n".join([lines[0] + ",colour"] + [ln + ",red" for ln in lines[1:]]) + "\n"
        )

    def missing_col(p):
        lines = _lines(p / "old_one_tiles.csv")
        (p / "old_one_tiles.csv").write_text(
            "\n".join(",".join(ln.split(",")[:2] + ln.split(",")[3:]) for ln in lines[:1])
            + "\n"
            + "\n".join(lines[1:])
            + "\n"
        )

    def header_only(name):
        def f(p):
            (p / name).write_text(_lines(p / name)[0] + "\n")

        return f

    def latin1(p):
        lines = _lines(p / "old_one_tiles.csv")
        lines[2] = lines[2].replace("not public", "n\xe9 public")
        (p / "old_one_tiles.csv").write_bytes(("\n".join(lines) + "\n").encode("latin-1"))

    def bom_bad_row(p):  # a BOM, then row 3 (second data row) is wrong: the error must say row 3
        lines = _lines(p / "old_one_tiles.csv")
        cells = lines[2].split(",")
        cells[3] = "lots"
        lines[2] = ",".join(cells)
        (p / "old_one_tiles.csv").write_bytes(("\n".join(lines) + "\n").encode("utf-8-sig"))

    def blank_line_row(p):  # a blank line 3, then line 4 is wrong
        lines = _lines(p / "old_one_tiles.csv")
        cells = lines[2].split(",")
        cells[3] = "lots"
        lines[2] = ",".join(cells)
        lines.insert(2, "")
        (p / "old_one_tiles.csv").write_text("\n".join(lines) + "\n")

    def short_row(p):
        lines = _lines(p / "old_one_card_rows.csv")
        lines[3] = ",".join(lines[3].split(",")[:4])
        (p / "old_one_card_rows.csv").write_text("\n".join(lines) + "\n")

    def long_row(p):
        lines = _lines(p / "old_one_card_rows.csv")
        lines[3] = lines[3] + ",extra,more"
        (p / "old_one_card_rows.csv").write_text("\n".join(lines) + "\n")

    def dup_card_row(p):
        _append_line(p / "old_one_card_rows.csv", _lines(p / "old_one_card_rows.csv")[1])

    def cards_dir(p):
        (p / "old_one_cards.csv").unlink()
        (p / "old_one_cards.csv").mkdir()

    def toml_latin1(p):
        data = (
            (p / "units.toml").read_text(encoding="utf-8").replace("one Gold per unit", "un \xe9cu")
        )
        (p / "units.toml").write_bytes(data.encode("latin-1"))

    def tile_count_huge(p):
        lines = _lines(p / "old_one_tiles.csv")
        cells = lines[1].split(",")
        cells[2] = "1000000000000"
        lines[1] = ",".join(cells)
        (p / "old_one_tiles.csv").write_text("\n".join(lines) + "\n")

    return {
        "pack_ok": lambda p: None,
        "pack_combat_number": lambda p: _drop_section(p / "pack.toml", "combat", "combat = 3"),
        "pack_section_string": lambda p: _drop_section(p / "pack.toml", "deck", 'deck = "forty"'),
        "pack_unit_number": lambda p: _drop_section(p / "units.toml", "infantry", "infantry = 3"),
        "pack_unit_string": lambda p: _drop_section(p / "units.toml", "airship", 'airship = "big"'),
        "pack_nan_cost": lambda p: _edit(
            p / "units.toml", "cost = { value = 1,", "cost = { value = nan,"
        ),
        "pack_inf_cost": lambda p: _edit(
            p / "units.toml", "cost = { value = 1,", "cost = { value = inf,"
        ),
        "pack_neg_inf_cost": lambda p: _edit(
            p / "units.toml", "cost = { value = 1,", "cost = { value = -inf,"
        ),
        "pack_huge_cost": lambda p: _edit(
            p / "units.toml", "cost = { value = 1,", "cost = { value = 1e300,"
        ),
        "pack_value_table": lambda p: _edit(
            p / "units.toml", "cost = { value = 1,", "cost = { value = { a = 1 },"
        ),
        "pack_bool_capacity": lambda p: _edit(
            p / "units.toml", "damage_capacity = { value = 2,", "damage_capacity = { value = true,"
        ),
        "pack_oldone_number": lambda p: _drop_section(p / "old_ones.toml", "zombie", "zombie = 1"),
        "pack_port_string": lambda p: _drop_section(p / "revenge.toml", "port", 'port = "harbour"'),
        "pack_dup_tile": dup_tile,
        "pack_extra_col": extra_col,
        "pack_missing_col": missing_col,
        "pack_header_only_tiles": header_only("old_one_tiles.csv"),
        "pack_empty_cards": lambda p: (p / "old_one_cards.csv").write_text(""),
        "pack_header_only_cards": header_only("old_one_cards.csv"),
        "pack_latin1": latin1,
        "pack_bom_bad_row": bom_bad_row,
        "pack_blank_line_row": blank_line_row,
        "pack_short_row": short_row,
        "pack_long_row": long_row,
        "pack_cards_dir": cards_dir,
        "pack_personality_number": lambda p: (p / "personalities.toml").write_text("proust = 5\n"),
        "pack_toml_latin1": toml_latin1,
        "pack_deck_size_huge": lambda p: _edit(
            p / "pack.toml", "value = 40,", "value = 4000000000,"
        ),
        "pack_dup_card_row": dup_card_row,
        "pack_tile_count_huge": tile_count_huge,
        "pack_no_pack_table": lambda p: _drop_section(
            p / "pack.toml", "pack", 'pack = "auztralia"'
        ),
        "pack_game_number": lambda p: (p / "game.toml").write_text("turns = 5\nvp = 3\n"),
    }


def _athena_mutations():
    def first_rows(p):
        return _lines(p / "outcome_cards.csv")

    def bom_bad_row(p):
        lines = first_rows(p)
        cells = lines[2].split(",")
        cells[3] = "lots"
        lines[2] = ",".join(cells)
        (p / "outcome_cards.csv").write_bytes(("\n".join(lines) + "\n").encode("utf-8-sig"))

    def latin1(p):
        lines = first_rows(p)
        lines[3] = lines[3].replace("per-rating", "per-r\xe9ting")
        (p / "outcome_cards.csv").write_bytes(("\n".join(lines) + "\n").encode("latin-1"))

    def extra_col(p):
        lines = first_rows(p)
        (p / "outcome_cards.csv").write_text(
            "\n".join([lines[0] + ",x"] + [ln + ",1" for ln in lines[1:]]) + "\n"
        )

    return {
        "athena_number_deck": lambda p: _drop_section(p / "pack.toml", "deck", "deck = 40"),
        "athena_string_turrets": lambda p: (p / "turrets.toml").write_text('turret = "big"\n'),
        "athena_nan_value": lambda p: _edit(
            p / "pack.toml", "size = { value = 20,", "size = { value = nan,"
        ),
        "athena_latin1_cards": latin1,
        "athena_bom_bad_row": bom_bad_row,
        "athena_extra_col": extra_col,
        "athena_header_only": lambda p: (p / "outcome_cards.csv").write_text(
            first_rows(p)[0] + "\n"
        ),
        "athena_dup_row": lambda p: _append_line(p / "outcome_cards.csv", first_rows(p)[1]),
    }


SPEC_OK = """[experiment]
name = "tiny"
mode = "combat"
root_seed = 1
chunk_size = 100
games = 200

[params]
force = "infantry=1"
vs = "zombie"
"""


def _spec(extra: str, base: str = SPEC_OK) -> str:
    return base + extra


SPECS = {
    "spec_ok.toml": SPEC_OK,
    "spec_seed_neg.toml": SPEC_OK.replace("root_seed = 1", "root_seed = -1"),
    "spec_huge_grid.toml": SPEC_OK.replace('[params]\nforce = "infantry=1"\nvs = "zombie"\n', "")
    + '[params]\nvs = "zombie"\n[grid]\nforce = ['
    + ",".join(f'"infantry={i}"' for i in range(1, 60))
    + "]\n"
    + '[override_grid]\n"units.infantry.cost" = ['
    + ",".join(str(i) for i in range(1, 60))
    + "]\n"
    + '"combat.sanity_per_combat" = ['
    + ",".join(str(i) for i in range(0, 60))
    + "]\n",
    "spec_many_chunks.toml": SPEC_OK.replace(
        "chunk_size = 100\ngames = 200", "chunk_size = 1\ngames = 10000000000000"
    ),
    "spec_big_chunk.toml": SPEC_OK.replace(
        "chunk_size = 100\ngames = 200", "chunk_size = 1000000000\ngames = 1000000000"
    ),
    "spec_huge_round_robin.toml": """[experiment]
name = "rr"
mode = "base"
root_seed = 1
games = 100
[params]
players = 4
[grid]
strategies = { round_robin = ["balanced", "economist", "hunter", "defender", "random", \
"balanced", "economist"], seats = 40, distinct = false }
""",
    "spec_huge_override_grid.toml": SPEC_OK
    + '[override_grid]\n"deck.assumed_seed" = ['
    + ",".join(str(i) for i in range(150))
    + ']\n"units.infantry.cost" = ['
    + ",".join(str(i) for i in range(150))
    + "]\n",
    "spec_bad_toml.toml": "[experiment\nname=",
    "spec_nan_override.toml": _spec('[overrides]\n"units.infantry.cost" = nan\n'),
    "spec_inf_override.toml": _spec('[overrides]\n"units.infantry.cost" = inf\n'),
    "spec_nan_grid_override.toml": _spec('[override_grid]\n"units.infantry.cost" = [1.0, nan]\n'),
    "spec_params_number.toml": SPEC_OK.replace(
        '[params]\nforce = "infantry=1"\nvs = "zombie"\n', "params = 3\n"
    ),
    "spec_grid_string.toml": SPEC_OK + '[grid]\nallocate = "cheapest"\n',
    "spec_dup_force.toml": SPEC_OK.replace(
        'force = "infantry=1"', 'force = "infantry=1,infantry=1"'
    ),
    "spec_bad_data.toml": SPEC_OK.replace("games = 200", 'games = 200\ndata = "pack_nan_cost"'),
}

MAP_HEADER = "hex,q,r,terrain,port,survey,level,farms,provenance,source"


def _maps(tmp: Path, shipped_map: Path) -> None:
    lines = shipped_map.read_text(encoding="utf-8").splitlines()
    data = [ln for ln in lines if ln and not ln.startswith("#")]
    header, rows = data[0], data[1:]
    (tmp / "map_dup_hex.csv").write_text("\n".join([header] + rows + [rows[0]]) + "\n")
    bad = rows[1].replace("assumed", "assum\xe9", 1)
    (tmp / "map_latin1.csv").write_bytes(
        ("\n".join([header, rows[0], bad] + rows[2:]) + "\n").encode("latin-1")
    )
    (tmp / "map_header_only.csv").write_text(header + "\n")
    cells = rows[1].split(",")
    cells[1] = "x"
    (tmp / "map_bom_bad_row.csv").write_bytes(
        ("\n".join([header, rows[0], ",".join(cells)] + rows[2:]) + "\n").encode("utf-8-sig")
    )
    (tmp / "map_extra_col.csv").write_text(
        "\n".join([header + ",colour"] + [r + ",red" for r in rows]) + "\n"
    )
    (tmp / "map_missing_col.csv").write_text(
        "\n".join(
            [header.replace(",farms", "")]
            + [",".join(r.split(",")[:7] + r.split(",")[8:]) for r in rows]
        )
        + "\n"
    )
    (tmp / "map_empty.csv").write_text("")
    cells = rows[0].split(",")
    cells[1] = "nan"
    (tmp / "map_nan_q.csv").write_text("\n".join([header, ",".join(cells)] + rows[1:]) + "\n")


def build(tmp: Path) -> Path:
    """Create every file the cases name under ``tmp`` (idempotent per folder)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from simkit.datapack import DEFAULT_PACK

    tmp.mkdir(parents=True, exist_ok=True)
    for name, mutate in _pack_mutations().items():
        dst = tmp / name
        shutil.copytree(DEFAULT_PACK, dst)
        mutate(dst)
    athena = DEFAULT_PACK.parent / "athena"
    for name, mutate in _athena_mutations().items():
        dst = tmp / name
        shutil.copytree(athena, dst)
        mutate(dst)
    for name, text in SPECS.items():
        (tmp / name).write_text(text)
    (tmp / "spec_binary.toml").write_bytes(b"\xff\xfe\x00garbage\x00" * 10)
    _maps(tmp, DEFAULT_PACK / "maps" / "eastern.csv")
    (tmp / "passwd").write_text(
        "root:x:0:0:SECRET-FIRST-LINE:/root:/bin/bash\ndaemon:x:1:1::/:/bin/sh\n"
    )
    (tmp / "afile").write_text("just a file\n")
    for d in ("adir", "adir.parquet", "adir.png", "adir.html", "adir_empty"):
        (tmp / d).mkdir()
    (tmp / "adir_full").mkdir()
    (tmp / "adir_full" / "thesis.txt").write_text("my thesis\n")
    for name in ("fifo.parquet", "fifo.png"):
        os.mkfifo(tmp / name)
    for name in (
        "null.parquet",
        "null.png",
        "null.html",
    ):  # private copies of /dev/null's device node
        try:
            os.mknod(tmp / name, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        except PermissionError:  # not root: a FIFO is also not a regular file
            os.mkfifo(tmp / name)
    (tmp / "notparquet.parquet").write_text("hello\n")
    pq.write_table(pa.table({"x": [1, 2]}), tmp / "other.parquet")
    (tmp / "odds.parquet").write_bytes(
        (tmp / "other.parquet").read_bytes()
    )  # replaced by a real table if needed
    # lakes
    for name, text in (("lake_bad_manifest", "{not json"), ("lake_list_manifest", "[1, 2]")):
        (tmp / name).mkdir()
        (tmp / name / "manifest.json").write_text(text)
    real = tmp / "lake_real"
    real.mkdir()
    (real / "manifest.json").write_text('{"format": "simkit-lake/1", "experiments": {}}\n')
    parent = tmp / "lake_parent"  # a folder holding someone else's lake in lake/
    (parent / "lake").mkdir(parents=True)
    (parent / "lake" / "manifest.json").write_text(
        '{"format": "simkit-lake/1", "experiments": {"x-1": {}}}\n'
    )
    (parent / "lake" / "precious.parquet").write_bytes(b"PAR1 someone else's data")
    foreign = tmp / "demo_foreign_report"  # a folder with a report.html the demo did not write
    foreign.mkdir()
    (foreign / "report.html").write_text("<html>my own report</html>\n")
    other = tmp / "other_run"  # another run's simulate output
    other.mkdir()
    (other / "summary.parquet").write_bytes((tmp / "other.parquet").read_bytes())
    return tmp


# --- simkit learn ----------------------------------------------------------------------------
LEARN_CMD = ("learn", "--out", "{T}/learn_out")
case("flag", "--games", *LEARN_CMD, "--games", "0")
case("flag", "--rollouts", *LEARN_CMD, "--rollouts", "-1")
case("flag", "--mode", *LEARN_CMD, "--mode", "solo")
case("flag", "--players", *LEARN_CMD, "--players", "9")
case("flag", "--seed", *LEARN_CMD, "--seed", "-4")
case("contradiction", "--difficulty", *LEARN_CMD, "--difficulty", "hard")
case("output", "--out", "learn", "--out", "{T}/afile")
case("output", "--out", "learn", "--out", "{T}/adir_full")
SIM_BASE = ("simulate", "--mode", "base", "--games", "2", "--out", "{T}/lo")
case("input", "afile", *SIM_BASE, "--strategies", "learned:{T}/afile")
case("input", "/dev/zero", *SIM_BASE, "--strategies", "learned:/dev/zero")


# --- valid-command controls: the same commands with good input must succeed -----------------
# (a validator that refused everything would pass the table above); run in this order in
# one fixture folder: the lake the later lines read is written by the line before them.
CONTROLS: list[tuple[str, ...]] = [
    ("combat", "--force", "infantry=2", "--vs", "shoggoth"),
    ("combat", "--force", "infantry=2", "--vs", "shoggoth", "--method", "mc", "--games", "2000"),
    ("odds", "--vs", "zombie", "--max-per-type", "1", "--out", "{T}/ctl_odds.parquet"),
    ("odds", "best", "--vs", "zombie", "--table", "{T}/ctl_odds.parquet"),
    ("board", "show", "--out", "{T}/ctl_board.png"),
    ("data", "check"),
    ("data", "provenance"),
    ("athena", "turret", "--weapons", "cannon:3", "--defense", "2", "--ammo", "2"),
    ("athena", "check"),
    ("simulate", "--mode", "revenge", "--games", "10", "--out", "{T}/ctl_sim"),
    ("replay", "--mode", "base", "--seed", "3", "--game", "0"),
    ("experiment", "check", "{T}/spec_ok.toml"),
    ("experiment", "run", "{T}/spec_ok.toml", "--out", "{T}/ctl_lake", "--quiet"),
    ("experiment", "verify", "{T}/ctl_lake"),
    ("experiment", "summary", "{T}/ctl_lake"),
    ("report", "{T}/ctl_lake", "--out", "{T}/ctl_report.html"),
    ("compare", "--games", "10", "--set-b", "port.oop_vp=9"),
    (
        "tune",
        "--mode",
        "base",
        "--strategy",
        "balanced",
        "--opponents",
        "balanced",
        "--trials",
        "2",
        "--games-per-trial",
        "20",
        "--seed",
        "1",
        "--out",
        "{T}/ctl_tune",
    ),
]


def control_args(argv: tuple[str, ...], tmp: Path) -> list[str]:
    return [a.replace("{T}", str(tmp)) for a in argv]


# --- running one case ----------------------------------------------------------------------------
SECRET = "SECRET-FIRST-LINE"


def sentinels(tmp: Path) -> dict[str, str]:
    """What must survive every case: files the program did not write, device nodes, FIFOs."""
    out = {}
    for rel in (
        "lake_parent/lake/precious.parquet",
        "lake_parent/lake/manifest.json",
        "demo_foreign_report/report.html",
        "other_run/summary.parquet",
        "adir_full/thesis.txt",
        "afile",
        "passwd",
    ):
        p = tmp / rel
        out[rel] = p.read_bytes().hex()[:64] if p.is_file() else "missing"
    for rel in ("fifo.parquet", "fifo.png", "null.parquet", "null.png", "null.html"):
        try:
            mode = os.lstat(tmp / rel).st_mode
            out[rel] = "chr" if stat.S_ISCHR(mode) else "fifo" if stat.S_ISFIFO(mode) else "other"
        except FileNotFoundError:
            out[rel] = "missing"
    temps = sorted(p.name for p in tmp.rglob("*") if ".tmp" in p.name)
    out["temporaries"] = ",".join(temps)
    return out


def classify(c: Case, code: int | None, out: str, err: str) -> str:
    """clean | traceback | exit0 | hang | echo | unclear (exit 2 but not one line naming the
    culprit)."""
    if code is None:
        return "hang"
    if "Traceback" in err or "Traceback" in out:
        return "traceback"
    if SECRET in err or SECRET in out:
        return "echo"
    if code == 0:
        return "exit0"
    lines = [ln for ln in err.splitlines() if ln.strip()]
    if code == 2 and len(lines) == 1 and c.culprit.lower() in lines[0].lower():
        return "clean"
    return "unclear"


def run_in_process(argv: list[str]) -> tuple[int | None, str, str]:
    """simkit.cli.main(argv) with stdout/stderr captured: (exit code, stdout, stderr).

    An exception escaping main is rendered as a traceback in stderr (what a user would see)."""
    import contextlib
    import io
    import traceback

    from simkit.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:  # noqa: BLE001 - this is what the user would see
            traceback.print_exc()
            code = 1
    return code, out.getvalue(), err.getvalue()
