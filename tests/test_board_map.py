"""Map files: the shipped Eastern reconstruction, the format's checks, `simkit board`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simkit.board import (
    AXIAL_DIRS,
    TERRAINS,
    available_maps,
    load_map,
    make_board,
    neighbors_from_coords,
    opposite,
    parse_map,
    reconstruct,
)
from simkit.board.model import pixel_center
from simkit.cli import main
from simkit.datapack import DEFAULT_PACK
from simkit.errors import DataPackError

HEADER = "hex,q,r,terrain,port,survey,level,farms,provenance,source"
NHEADER = HEADER + ",n1,n2,n3,n4,n5,n6"


@pytest.fixture(scope="module")
def eastern():
    return load_map("eastern")


def write(tmp_path: Path, *lines: str, name: str = "map.csv") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def check_fails(capsys, path: Path) -> str:
    """Run `simkit board check FILE`, expect exit 2 and return the one error line."""
    code = main(["board", "check", str(path)])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    return err


# -- the shipped Eastern map ---------------------------------------------------------------


def test_eastern_map_is_listed_in_the_pack():
    assert "eastern" in available_maps()


def test_eastern_map_has_thirteen_survey_hexes(eastern):
    assert eastern.survey_hexes.size == 13


def test_eastern_ports_only_on_coastal_hexes(eastern):
    assert eastern.port_hexes.size >= 4
    assert (eastern.hex_terrain[eastern.port_hexes] == TERRAINS.index("coastal")).all()


def test_eastern_level_marks_only_inland(eastern):
    marked = eastern.hex_level > 0
    assert marked.sum() > 13
    assert not np.isin(
        eastern.hex_terrain[marked], [TERRAINS.index("coastal"), TERRAINS.index("hills")]
    ).any()


def test_eastern_hex_numbers_are_unique_and_ascending(eastern):
    assert (np.diff(eastern.hex_number) > 0).all()


def test_eastern_every_value_is_tagged_assumed(eastern):
    assert set(eastern.provenance) == {"assumed"}


def test_eastern_adjacency_is_symmetric(eastern):
    nb = eastern.neighbors
    for h in range(eastern.num_hexes):
        for k in range(6):
            if nb[h, k] >= 0:
                assert nb[nb[h, k], opposite(k)] == h


def test_eastern_is_one_connected_landmass(eastern):
    from simkit.board import distances

    assert (distances(eastern.neighbors, [0]) >= 0).all()


def test_shipped_files_equal_the_reconstruction_script_output():
    maps = (DEFAULT_PACK / "maps" / "eastern.csv").read_text(encoding="utf-8")
    tiles = (DEFAULT_PACK / "survey_tiles.csv").read_text(encoding="utf-8")
    assert maps == reconstruct.to_csv(reconstruct.build_eastern(), reconstruct.MAP_HEADER)
    assert tiles == reconstruct.to_csv(reconstruct.build_survey_tiles(), reconstruct.TILES_HEADER)


# -- geometry and compass --------------------------------------------------------------


def test_neighbour_index_k_is_compass_k_plus_1_clockwise_from_north():
    x0, y0 = pixel_center(0, 0)
    angles = []
    for dq, dr in AXIAL_DIRS:
        x, y = pixel_center(dq, dr)
        angles.append(np.degrees(np.arctan2(x - x0, y - y0)) % 360)  # bearing, 0 = up, clockwise
    assert np.allclose(angles, [0, 60, 120, 180, 240, 300])


def test_neighbors_table_is_minus_one_padded_int32():
    nb = neighbors_from_coords(np.array([0, 0]), np.array([0, 1]))
    assert nb.dtype == np.int32 and nb.tolist() == [
        [-1, -1, -1, 1, -1, -1],
        [0, -1, -1, -1, -1, -1],
    ]


def test_single_hex_map_file_loads_with_no_neighbours(tmp_path):
    board = parse_map(write(tmp_path, HEADER, "7,0,0,outback,0,1,1,sheep,assumed,x"))
    assert (
        board.num_hexes == 1 and (board.neighbors == -1).all() and board.hex_number.tolist() == [7]
    )


def test_rows_are_indexed_by_ascending_hex_number(tmp_path):
    board = parse_map(
        write(tmp_path, HEADER, "9,0,1,outback,0,0,,,assumed,x", "4,0,0,outback,0,0,,,assumed,x")
    )
    assert board.hex_number.tolist() == [4, 9] and board.neighbors[0, 3] == 1


def test_explicit_neighbours_may_leave_a_side_uncrossable(tmp_path):
    board = parse_map(
        write(
            tmp_path,
            NHEADER,
            "1,0,0,outback,0,0,,,assumed,x,,,,,,",
            "2,0,1,outback,0,0,,,assumed,x,,,,,,",
        )
    )
    assert (board.neighbors == -1).all()


def test_explicit_neighbours_matching_coordinates_load(tmp_path):
    board = parse_map(
        write(
            tmp_path,
            NHEADER,
            "1,0,0,outback,0,0,,,assumed,x,,,,2,,",
            "2,0,1,outback,0,0,,,assumed,x,1,,,,,",
        )
    )
    assert board.neighbors.tolist() == [[-1, -1, -1, 1, -1, -1], [0, -1, -1, -1, -1, -1]]


def test_board_hash_changes_with_terrain():
    a = make_board([(0, 0), (0, 1)], "outback")
    b = make_board([(0, 0), (0, 1)], ["outback", "hills"])
    assert a.hash != b.hash


# -- bad map files: exit code 2, one line naming row and field ---------------------------


def test_unknown_terrain_names_row_and_field(tmp_path, capsys):
    err = check_fails(
        capsys,
        write(tmp_path, HEADER, "1,0,0,outback,0,0,,,assumed,x", "2,0,1,swamp,0,0,,,assumed,x"),
    )
    assert "row 3" in err and "field 'terrain'" in err and "swamp" in err


def test_neighbour_out_of_range_names_row_and_field(tmp_path, capsys):
    err = check_fails(
        capsys,
        write(
            tmp_path,
            NHEADER,
            "1,0,0,outback,0,0,,,assumed,x,,,,2,,",
            "2,0,1,outback,0,0,,,assumed,x,1,,,,,99",
        ),
    )
    assert "row 3" in err and "field 'n6'" in err and "out of range" in err


def test_duplicate_hex_number_names_row_and_field(tmp_path, capsys):
    err = check_fails(
        capsys,
        write(tmp_path, HEADER, "1,0,0,outback,0,0,,,assumed,x", "1,0,1,outback,0,0,,,assumed,x"),
    )
    assert "row 3" in err and "field 'hex'" in err and "duplicate hex number 1" in err


def test_asymmetric_adjacency_names_row_and_field(tmp_path, capsys):
    err = check_fails(
        capsys,
        write(
            tmp_path,
            NHEADER,
            "1,0,0,outback,0,0,,,assumed,x,,,,2,,",
            "2,0,1,outback,0,0,,,assumed,x,,,,,,",
        ),
    )
    assert "row 2" in err and "field 'n4'" in err and "asymmetric adjacency" in err


def test_neighbour_in_the_wrong_direction_names_row_and_field(tmp_path, capsys):
    err = check_fails(
        capsys,
        write(
            tmp_path,
            NHEADER,
            "1,0,0,outback,0,0,,,assumed,x,2,,,,,",
            "2,0,1,outback,0,0,,,assumed,x,,,,1,,",
        ),
    )
    assert "row 2" in err and "field 'n1'" in err and "not in compass direction 1" in err


def test_port_symbol_off_the_coast_is_rejected(tmp_path, capsys):
    err = check_fails(capsys, write(tmp_path, HEADER, "1,0,0,outback,1,0,,,assumed,x"))
    assert "row 2" in err and "field 'port'" in err


def test_level_mark_on_hills_is_rejected(tmp_path, capsys):
    err = check_fails(capsys, write(tmp_path, HEADER, "1,0,0,hills,0,0,2,,assumed,x"))
    assert "row 2" in err and "field 'level'" in err


def test_sheep_off_outback_is_rejected(tmp_path, capsys):
    err = check_fails(capsys, write(tmp_path, HEADER, "1,0,0,coastal,0,0,,sheep,assumed,x"))
    assert "row 2" in err and "field 'farms'" in err


def test_unknown_provenance_tag_is_rejected(tmp_path, capsys):
    err = check_fails(capsys, write(tmp_path, HEADER, "1,0,0,outback,0,0,,,guessed,x"))
    assert "row 2" in err and "field 'provenance'" in err


def test_two_hexes_at_the_same_coordinates_are_rejected(tmp_path, capsys):
    err = check_fails(
        capsys,
        write(tmp_path, HEADER, "1,0,0,outback,0,0,,,assumed,x", "2,0,0,outback,0,0,,,assumed,x"),
    )
    assert "row 3" in err and "field 'q'" in err


def test_missing_column_is_rejected(tmp_path, capsys):
    err = check_fails(
        capsys,
        write(
            tmp_path, "hex,q,r,port,survey,level,farms,provenance,source", "1,0,0,0,0,,,assumed,x"
        ),
    )
    assert "missing column 'terrain'" in err


def test_comment_lines_count_towards_row_numbers(tmp_path):
    path = write(tmp_path, "# a comment", HEADER, "1,0,0,lava,0,0,,,assumed,x")
    with pytest.raises(DataPackError, match="row 3"):
        parse_map(path)


def test_unknown_map_name_exits_2(capsys):
    assert main(["board", "check", "atlantis"]) == 2
    assert "unknown map 'atlantis'" in capsys.readouterr().err


# -- CLI -----------------------------------------------------------------------------------


def test_board_check_accepts_the_shipped_map(capsys):
    assert main(["board", "check", str(DEFAULT_PACK / "maps" / "eastern.csv"), "--json"]) == 0
    assert '"survey": 13' in capsys.readouterr().out


def test_board_check_warns_when_survey_count_differs_from_rules(tmp_path, capsys):
    assert (
        main(
            ["board", "check", str(write(tmp_path, HEADER, "1,0,0,outback,0,1,1,sheep,assumed,x"))]
        )
        == 0
    )
    assert "warning: 1 survey hexes" in capsys.readouterr().out


def test_board_show_writes_a_png_of_a_setup(tmp_path):
    out = tmp_path / "board.png"
    assert main(["board", "show", "--map", "eastern", "--setup-seed", "5", "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_board_show_rejects_non_png_output(tmp_path, capsys):
    assert main(["board", "show", "--out", str(tmp_path / "board.jpg")]) == 2
    assert not (tmp_path / "board.jpg").exists()
