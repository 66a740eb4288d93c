"""Opening a lake for analysis (simkit.analysis): one experiment's verified files, its grid
keys and key metric, refused when the run did not finish or a file differs from the
manifest unless asked to read what is there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from simkit.lake import Coverage, LakeError, LakeIndex, Manifest, coverage, scan, unified_schema


class Lake:
    """One experiment of a lake: its verified files, grid keys and key metric."""

    def __init__(
        self,
        root: str | Path,
        experiment: str | None = None,
        verify: bool = True,
        allow_incomplete: bool = False,
    ):
        self.root = Path(root)
        self.where = ""  # set by a reader of several folders whose lakes share a name
        self.manifest = Manifest.load(self.root)
        if not self.manifest.exists():
            raise LakeError(f"{self.root}: not a simkit lake (no manifest.json)")
        ids = sorted(self.manifest.experiments)
        if experiment is None:
            if len(ids) != 1:
                raise LakeError(
                    f"{self.root}: holds experiments {', '.join(ids)}; name one (experiment=...)"
                )
            experiment = ids[0]
        if experiment not in self.manifest.experiments:
            raise LakeError(f"{self.root}: no experiment '{experiment}' (has: {', '.join(ids)})")
        self.experiment = experiment
        self.record = self.manifest.experiments[experiment]
        self.index: LakeIndex = scan(self.root, self.manifest)
        if verify:
            self.index.raise_problems()
        _OPENED[self.root] = None  # a read that fails later names the damaged file (cli.main)
        self.coverage: Coverage = coverage(self.index, self.manifest, experiment)
        if verify and not allow_incomplete and not self.coverage.complete:
            raise LakeError(
                f"{self.root}: experiment '{experiment}' is incomplete or changed: "
                f"{self.coverage.describe()}; {self.coverage.summary(2)} (rerun the spec to "
                "complete it, or pass --allow-incomplete to read what is there)"
            )

    @property
    def complete(self) -> bool:
        return self.coverage.complete

    def missing_note(self) -> str:
        """'' for a complete lake, else one sentence saying how much is missing."""
        if self.coverage.complete:
            return ""
        c = self.coverage
        return (
            f"INCOMPLETE: experiment '{self.experiment}' holds {c.describe()}"
            + (f", {c.games_missing:,} games missing" if c.games_missing else "")
            + f" ({c.summary(2)})"
        )

    @property
    def cells(self) -> dict[str, dict[str, Any]]:
        return self.record["cells"]

    @property
    def name(self) -> str:
        """The experiment's name as its spec gives it (the id without its hash suffix), for
        headings; the id itself stays in reports' identifiers lines. With ``where`` set (a
        report of several folders each holding a lake of this name): 'name (where)'."""
        name = str(self.record.get("name") or self.experiment)
        return f"{name} ({self.where})" if self.where else name

    @property
    def key_metric(self) -> str:
        return self.record.get("key_metric", "win")

    @property
    def grid_keys(self) -> list[str]:
        """Parameter and override columns whose value differs between cells (grid order)."""
        values: dict[str, set[str]] = {}
        for rec in self.cells.values():
            for name, value in {**rec["params"], **rec["overrides"]}.items():
                values.setdefault(name, set()).add(repr(value))
        spec = self.record.get("spec", {})
        order = list(spec.get("grid", {})) + list(spec.get("override_grid", {}))
        order += [k for k in values if k not in order]
        return [k for k in order if len(values.get(k, ())) > 1]

    def files(self, table: str = "summary") -> list[Path]:
        return self.index.paths(table, cells=self.cells)

    def scan(self, table: str = "summary") -> pl.LazyFrame:
        """The experiment's rows of one table (verified files only), as a polars lazy frame."""
        chunks = self.index.select(table, cells=self.cells)
        if not chunks:
            raise LakeError(f"{self.root}: no '{table}' files for experiment '{self.experiment}'")
        schema = pl.from_arrow(unified_schema(chunks).empty_table()).schema
        return pl.scan_parquet(
            [self.root / f.relpath for f in chunks],
            hive_partitioning=False,
            schema=schema,
            cast_options=pl.ScanCastOptions(integer_cast="upcast"),
            missing_columns="insert",  # cells of a worlds run override different values
        )


def open_lake(
    root: str | Path,
    experiment: str | None = None,
    verify: bool = True,
    allow_incomplete: bool = False,
) -> Lake:
    """One experiment of a lake, checked against its manifest: a lake whose run did not finish,
    or whose files differ from what the manifest lists, is refused unless ``allow_incomplete``
    (then ``lake.coverage`` and ``lake.missing_note()`` say how much is missing)."""
    return Lake(root, experiment, verify, allow_incomplete)


_OPENED: dict[Path, None] = {}  # lakes this process has read (in order)


def opened_lakes() -> list[Path]:
    return list(_OPENED)
