"""``tower export``: one folder for a digital game; the .glb meshes load back intact."""

from __future__ import annotations

import hashlib

import pytest
import trimesh
from model_files import tampered

from tower.cli import main
from tower.export import GLTF_VOLUME_SCALE, export_meshes
from tower.files.outputs import MANIFEST
from tower.model.distilled import shipped_path

EXPECTED = {
    "README.md",
    "marrakesh.json",
    "model-format.md",
    "spec.toml",
    "tower.glb",
    "pieces/brigand.glb",
    "pieces/expert.glb",
    "pieces/keshi.glb",
    "pieces/watchman.glb",
}


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("export") / "marrakesh"
    main(["export", "--preset", "marrakesh", "--out", str(out)])
    return out


def test_export_writes_the_folder(exported):
    files = {p.relative_to(exported).as_posix() for p in exported.rglob("*") if p.is_file()}
    assert files == EXPECTED | {MANIFEST}  # the manifest: which files `tower export` wrote
    assert (exported / "marrakesh.json").read_bytes() == shipped_path("marrakesh").read_bytes()
    readme = (exported / "README.md").read_text()
    assert "License: MIT" in readme
    for name in EXPECTED - {"README.md"}:  # every file named, with its checksum
        digest = hashlib.sha256((exported / name).read_bytes()).hexdigest()
        assert f"`{name}`" in readme and digest in readme, name


def test_glb_meshes_load_back_with_the_same_volumes(exported):
    for name, meshes in export_meshes("marrakesh").items():
        scene = trimesh.load(exported / name, force="scene")
        assert set(scene.geometry) == {n for n, _ in meshes}, name
        for part, mesh in meshes:
            back = scene.geometry[part]
            assert back.is_watertight, f"{name}: {part}"
            # float32 in metres: volumes agree to a few parts per million
            assert back.volume / GLTF_VOLUME_SCALE == pytest.approx(mesh.volume, rel=1e-5), part
            # y up in glTF: the tower's height (z) becomes y
            assert back.extents[1] * 1e3 == pytest.approx(mesh.extents[2], rel=1e-5), part


def test_export_keeps_other_files_and_refuses_to_replace_one_it_did_not_write(tmp_path, capsys):
    (tmp_path / "mine.txt").write_text("keep me")
    main(["export", "--out", str(tmp_path)])  # beside a file of the user's
    assert (tmp_path / "mine.txt").read_text() == "keep me"
    main(["export", "--out", str(tmp_path)])  # its own files: replaced without --force
    other = tmp_path / "other"
    other.mkdir()
    (other / "tower.glb").write_bytes(b"old")
    with pytest.raises(SystemExit) as exc:
        main(["export", "--out", str(other)])
    assert exc.value.code == 2
    assert "tower.glb: already exists" in capsys.readouterr().err
    assert [p.name for p in other.iterdir()] == ["tower.glb"]
    assert (other / "tower.glb").read_bytes() == b"old"


def test_force_replaces_only_the_exports_files(tmp_path):
    (tmp_path / "mine.txt").write_text("keep me")
    (tmp_path / "tower.glb").write_bytes(b"old")
    main(["export", "--out", str(tmp_path), "--force"])
    assert (tmp_path / "mine.txt").read_text() == "keep me"
    assert (tmp_path / "tower.glb").read_bytes()[:4] == b"glTF"


def test_a_bad_model_file_writes_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(tampered(shipped_path("marrakesh").read_text()))
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as exc:
        main(["export", "--model", str(bad), "--out", str(out)])
    assert exc.value.code == 2
    assert "bad.json: field sha256: checksum mismatch" in capsys.readouterr().err
    assert not out.exists()
