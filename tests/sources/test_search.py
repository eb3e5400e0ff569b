"""The search path, NAME/PATH references, name escapes, tag fallback, did-you-mean, listing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import tvmc
import tvmc.api
from hypothesis import given, settings
from hypothesis import strategies as st
from tvmc.errors import ConfigNotFoundError, LimitError, Location
from tvmc.sources import (
    ConfigEntry,
    SearchDir,
    find_config,
    find_named,
    is_path_ref,
    list_configs,
    search_path,
    shipped_config_dir,
    split_part,
    user_config_dir,
)
from tvmc.sources import limits as limits_module

REPO_CONFIGS = Path(tvmc.__file__).resolve().parents[2] / "configs"
SEARCH_DIR = Path(__file__).parent / "data" / "search"  # holds only a/x.toml (a = 1)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def dirs(tmp_path: Path) -> list[SearchDir]:
    """Three search directories: env, user, shipped (fakes, under tmp_path)."""
    result = [
        SearchDir(tmp_path / "env", "TVMC_CONFIG_PATH"),
        SearchDir(tmp_path / "user", "user"),
        SearchDir(tmp_path / "shipped", "shipped"),
    ]
    for d in result:
        d.path.mkdir()
    return result


# --- the search path ---------------------------------------------------------------------


def test_search_path_order(tmp_path: Path) -> None:
    env = {
        "TVMC_CONFIG_PATH": os.pathsep.join([str(tmp_path / "a"), "", str(tmp_path / "missing")]),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
    }
    result = search_path(env)
    assert result[:3] == [
        SearchDir(tmp_path / "a", "TVMC_CONFIG_PATH"),
        SearchDir(tmp_path / "missing", "TVMC_CONFIG_PATH"),  # kept, skipped when searching
        SearchDir(tmp_path / "xdg" / "tvmc" / "configs", "user"),
    ]
    assert result[3:] == [SearchDir(REPO_CONFIGS, "shipped")]
    assert str(result[0]) == f"{tmp_path / 'a'} (TVMC_CONFIG_PATH)"


def test_user_dir_defaults_and_relative_xdg_is_ignored(tmp_path: Path) -> None:
    assert user_config_dir({"HOME": str(tmp_path)}) == tmp_path / ".config" / "tvmc" / "configs"
    relative = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": "rel/dir"}
    assert user_config_dir(relative) == tmp_path / ".config" / "tvmc" / "configs"


def test_search_path_expands_and_deduplicates(tmp_path: Path) -> None:
    user = tmp_path / ".config" / "tvmc" / "configs"
    user.mkdir(parents=True)
    env = {"HOME": str(tmp_path), "TVMC_CONFIG_PATH": os.pathsep.join(["~/.config/tvmc/configs", str(user)])}
    result = search_path(env)
    assert [d.origin for d in result] == ["TVMC_CONFIG_PATH", "shipped"]  # the user dir is already listed
    assert result[0].path == user


def test_search_path_uses_os_environ_by_default(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TVMC_CONFIG_PATH", str(tmp_path))
    assert search_path()[0] == SearchDir(tmp_path, "TVMC_CONFIG_PATH")


def test_shipped_dir_is_the_repository_configs() -> None:
    assert shipped_config_dir() == REPO_CONFIGS


# --- references ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ref", "windows", "expected"),
    [
        ("aws/c5", False, False),
        ("host/default", False, False),
        ("nvidia/nvidia-a100", False, False),
        ("c5.toml", False, True),
        ("aws/c5.JSON", False, True),
        ("/etc/tvmc.toml", False, True),
        ("/etc/x", False, True),
        ("./x", False, True),
        ("../x", False, True),
        ("~/x", False, True),
        ("..", False, True),
        ("a\\b", False, False),
        ("a\\b", True, True),
        ("C:x", True, True),
        ("C:x", False, False),
    ],
)
def test_is_path_ref(ref: str, windows: bool, expected: bool) -> None:
    assert is_path_ref(ref, windows=windows) is expected


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        ("aws/c5", ("aws/c5", None)),
        ("aws/c5:gpu", ("aws/c5", "gpu")),
        ("x.toml:cuda-0", ("x.toml", "cuda-0")),
        ("./boards/x.json:host", ("./boards/x.json", "host")),
        ("a:b:c", ("a:b", "c")),
        ("C:\\configs\\x.toml", ("C:\\configs\\x.toml", None)),
        ("C:/configs/x.toml:gpu", ("C:/configs/x.toml", "gpu")),
        ("./a:b/c.toml", ("./a:b/c.toml", None)),  # the colon is inside a path
        ("./foo:bar.toml", ("./foo:bar.toml", None)),
        ("/dev/fd:3", ("/dev/fd:3", None)),
        ("name:", ("name:", None)),
        (":part", (":part", None)),
        ("a:b c", ("a:b c", None)),
    ],
)
def test_split_part(ref: str, expected: tuple[str, str | None]) -> None:
    assert split_part(ref) == expected


# --- named configs -------------------------------------------------------------------------


def test_first_directory_wins_and_toml_beside_json_is_ambiguous(dirs: list[SearchDir], tmp_path: Path) -> None:
    env, user, shipped = (d.path for d in dirs)
    write(shipped / "aws" / "c5.toml", 'description = "shipped"')
    write(user / "aws" / "c5.toml", 'description = "user toml"')
    layer = find_config("aws/c5", dirs)
    assert layer.data == {"description": "user toml"}
    assert (layer.name, layer.path, layer.format) == ("aws/c5", user / "aws" / "c5.toml", "toml")
    write(user / "aws" / "c5.json", '{"description": "user json"}')
    with pytest.raises(ConfigNotFoundError, match=r"config 'aws/c5' is ambiguous: both aws/c5.toml and aws/c5.json"):
        find_config("aws/c5", dirs)
    write(env / "aws" / "c5.json", '{"description": "env"}')  # an earlier directory decides alone
    assert find_config("aws/c5", dirs).data == {"description": "env"}


@pytest.mark.skipif(os.name == "nt", reason="':' and '\\' cannot be in Windows file names")
def test_files_whose_names_could_not_be_asked_for_are_listed_as_errors(dirs: list[SearchDir]) -> None:
    for name in (
        "ok.toml",
        "a:b.toml",
        "back\\slash.json",
        "x:y/inner.toml",
        "sub/fine.json",
        "sub/c:d.toml",
        ".hidden.toml",
        "dir.toml/inner.toml",
    ):
        write(dirs[0].path / name, "")
    entries = list_configs(dirs[:1])
    unnamed = {e.name: e.error for e in entries if (e.error or "").startswith("no config name")}
    assert [e.name for e in entries if e.name not in unnamed] == ["dir.toml/inner", "ok", "sub/fine"]
    assert sorted(unnamed) == ["a:b", "back\\slash", "sub/c:d", "x:y/inner"]
    assert all(str(e).startswith("no config name can ask for this file") for e in unnamed.values())


def test_missing_search_directories_are_skipped(tmp_path: Path, dirs: list[SearchDir]) -> None:
    write(dirs[2].path / "host" / "default.toml", "")
    missing = [SearchDir(tmp_path / "nope", "TVMC_CONFIG_PATH"), *dirs]
    assert find_config("host/default", missing).name == "host/default"


def test_named_layer_source_is_the_displayed_path(
    dirs: list[SearchDir], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(dirs[1].path / "x.toml", "a = [1,\n 2]")
    monkeypatch.chdir(tmp_path)
    layer = find_config("x", dirs)
    assert layer.source == os.path.join("user", "x.toml")
    assert layer.locate("/a/1") == Location(os.path.join("user", "x.toml"), 2, 2)


def test_name_with_part_loads_the_name(dirs: list[SearchDir]) -> None:
    write(dirs[0].path / "boards" / "x.toml", "a = 1")
    assert find_config("boards/x:gpu", dirs).name == "boards/x"


def test_a_name_never_looks_in_the_working_directory(
    dirs: list[SearchDir], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # old tvmc let a stray default.json in the cwd hijack the default config
    write(tmp_path / "default.toml", "a = 1")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigNotFoundError):
        find_config("default", dirs)


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("../x", "'.' and '..' are not allowed: a name cannot leave its search directory"),
        ("a/../../etc/passwd", "'.' and '..' are not allowed"),
        ("./x", "'.' and '..' are not allowed"),
        ("/etc/passwd", "a name is relative to the search path"),
        ("C:x", "a name is relative to the search path"),
        ("a//b", "a name cannot have empty parts"),
        ("a/", "a name cannot have empty parts"),
        ("", "the name is empty"),
        ("a\\..\\b", "use '/' to separate the parts of a name"),
        ("a\0b", "NUL is not allowed"),
        ("a/b:c:d e", "':' is not allowed"),
    ],
)
def test_names_cannot_escape_their_directory(dirs: list[SearchDir], name: str, reason: str) -> None:
    write(dirs[0].path.parent / "passwd.toml", "secret = 1")
    with pytest.raises(ConfigNotFoundError, match="invalid config name") as info:
        find_named(name, dirs)
    assert reason in str(info.value)


# `NAME:PART` whose PART is not a part name is not split: the error says what is wrong with the
# part (it said "':' not allowed in a name"), on one line with the line break escaped.
@pytest.mark.parametrize(
    ("ref", "reason"),
    [
        ("aws/c5:cu\nda", "the part 'cu\\nda' after ':' contains a line break"),
        ("aws/c5:cu\r", "the part 'cu\\r' after ':' contains a line break"),
        ("aws/c5:cu\u2028da", "the part 'cu\\u2028da' after ':' contains a line break"),
        ("aws/c5:cu da", "the part 'cu da' after ':' is not a part name"),
        ("aws/c5:", "nothing after ':'"),
    ],
)
def test_a_bad_part_is_reported_as_one(ref: str, reason: str) -> None:
    with pytest.raises(tvmc.errors.TvmcError) as info:
        tvmc.api.resolve([ref], [], env={})
    line = info.value.one_line()
    assert reason in line and "':' is not allowed" not in line and line.isprintable(), line


def test_find_config_rejects_climbing_names(dirs: list[SearchDir]) -> None:
    with pytest.raises(ConfigNotFoundError, match=r"invalid config name 'a/\.\./\.\./x'"):
        find_config("a/../../x", dirs)


def test_symlink_pointing_outside_is_refused(dirs: list[SearchDir], tmp_path: Path) -> None:
    outside = write(tmp_path / "elsewhere" / "evil.toml", "a = 1")
    (dirs[0].path / "evil.toml").symlink_to(outside)
    (dirs[0].path / "vendor").symlink_to(outside.parent, target_is_directory=True)
    for name in ("evil", "vendor/evil"):
        with pytest.raises(ConfigNotFoundError, match="outside its search directory") as info:
            find_config(name, dirs)
        assert str(outside) in str(info.value) and "refusing to load it" in str(info.value)


def test_symlink_inside_the_directory_is_fine(dirs: list[SearchDir]) -> None:
    target = write(dirs[0].path / "real" / "x.toml", "a = 1")
    (dirs[0].path / "alias.toml").symlink_to(target)
    assert find_config("alias", dirs).data == {"a": 1}


def test_symlinked_search_directory_is_fine(dirs: list[SearchDir], tmp_path: Path) -> None:
    write(dirs[0].path / "x.toml", "a = 1")
    link = tmp_path / "link"
    link.symlink_to(dirs[0].path, target_is_directory=True)
    assert find_config("x", [SearchDir(link, "user")]).data == {"a": 1}


# --- paths -----------------------------------------------------------------------------------


def test_paths_are_relative_to_the_anchor_or_cwd(
    dirs: list[SearchDir], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "proj" / "base.toml", "a = 1")
    write(tmp_path / "proj" / "sub" / "c.json", '{"b": 2}')
    assert find_config("../base.toml", dirs, relative_to=tmp_path / "proj" / "sub").data == {"a": 1}
    monkeypatch.chdir(tmp_path / "proj")
    assert find_config("sub/c.json", dirs).data == {"b": 2}
    assert find_config("./base.toml", dirs).source == "base.toml"
    assert find_config(str(tmp_path / "proj" / "base.toml"), dirs).name is None
    assert find_config("base.toml:gpu", dirs).data == {"a": 1}


def test_home_paths(dirs: list[SearchDir], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    write(tmp_path / "mine.toml", "a = 1")
    assert find_config("~/mine.toml", dirs).data == {"a": 1}


def test_a_file_whose_name_has_a_colon_wins(
    dirs: list[SearchDir], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "x.toml", "which = 'plain'")
    write(tmp_path / "x.toml:gpu", "which = 'colon'")
    assert find_config("./x.toml:gpu", dirs).data == {"which": "colon"}


def test_missing_path(dirs: list[SearchDir], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    origin = Location("base.toml", 2, 12)
    with pytest.raises(ConfigNotFoundError) as info:
        find_config("./nope.toml", dirs, origin=origin)
    expected = f"config file './nope.toml' not found (no such file: {tmp_path / 'nope.toml'})"
    assert str(info.value) == f"base.toml:2:12: {expected}"
    with pytest.raises(ConfigNotFoundError, match=r"^config file '/nope/x\.toml' not found$"):
        find_config("/nope/x.toml", dirs)


# --- tags, misses and did-you-mean ---------------------------------------------------------


def test_tag_fallback(dirs: list[SearchDir]) -> None:
    tags = {"nvidia/nvidia-a100"}
    layer = find_config("nvidia/nvidia-a100", dirs, tag_lookup=tags.__contains__)
    assert (layer.source, layer.format, layer.name, layer.path) == (
        "tag:nvidia/nvidia-a100",
        "tag",
        "nvidia/nvidia-a100",
        None,
    )
    assert layer.data["targets"] == ["nvidia/nvidia-a100"]
    assert layer.locate("/targets/0") == Location("tag:nvidia/nvidia-a100")
    write(dirs[2].path / "nvidia" / "nvidia-a100.toml", "targets = ['cuda']")
    assert find_config("nvidia/nvidia-a100", dirs, tag_lookup=tags.__contains__).format == "toml"


def test_miss_names_the_ref_the_search_path_and_near_names(dirs: list[SearchDir]) -> None:
    write(dirs[1].path / "aws" / "c5.toml", "")
    write(dirs[2].path / "host" / "default.toml", "")
    origin = Location("--config")
    with pytest.raises(ConfigNotFoundError) as info:
        find_config("aws/c6", dirs, origin=origin)
    err = info.value
    assert err.location == origin
    assert err.suggestions == ("aws/c5",)
    assert str(err) == (
        "--config: config 'aws/c6' not found: no aws/c6.toml or aws/c6.json on the search path; "
        "searched " + ", ".join(str(d) for d in dirs) + " (did you mean 'aws/c5'?)"
    )


def test_did_you_mean_prefers_the_same_last_part(dirs: list[SearchDir]) -> None:
    write(dirs[2].path / "host" / "default.toml", "")
    with pytest.raises(ConfigNotFoundError) as info:
        find_config("default", dirs)
    assert info.value.suggestions[0] == "host/default"


def test_did_you_mean_offers_host_native_though_no_file_holds_it(dirs: list[SearchDir]) -> None:
    for miss in ("native", "host/nativ"):
        with pytest.raises(ConfigNotFoundError) as info:
            find_config(miss, dirs)
        assert info.value.suggestions[0] == "host/native"


def test_a_missing_path_suggests_close_siblings_as_written(tmp_path: Path) -> None:
    """The README once extended `../base/aarch64.toml`; the file is `base/aarch64-linux.toml`."""
    write(tmp_path / "base" / "aarch64-linux.toml", "")
    write(tmp_path / "base" / "x86_64-linux.json", "")
    write(tmp_path / "base" / "notes.txt", "")  # not a config: never offered
    write(tmp_path / "base" / "aarch64.txt", "")
    (tmp_path / "boards").mkdir()
    with pytest.raises(ConfigNotFoundError) as info:
        find_config("../base/aarch64.toml", [], relative_to=tmp_path / "boards")
    assert info.value.suggestions == ("../base/aarch64-linux.toml",)
    assert "(did you mean '../base/aarch64-linux.toml'?)" in str(info.value)
    with pytest.raises(ConfigNotFoundError) as info:
        find_config("./nothing-like-it.toml", [], relative_to=tmp_path / "base")
    assert info.value.suggestions == ()
    with pytest.raises(ConfigNotFoundError) as info:  # no such directory: nothing to suggest, no crash
        find_config("./missing/aarch64.toml", [], relative_to=tmp_path)
    assert info.value.suggestions == ()


def test_did_you_mean_includes_tag_candidates(dirs: list[SearchDir]) -> None:
    with pytest.raises(ConfigNotFoundError, match="and no TVM target tag") as info:
        find_config(
            "nvidia/nvidia-a10",
            dirs,
            tag_lookup=lambda name: False,
            candidates=lambda: ["nvidia/nvidia-a100", "apple/m1-gpu"],
        )
    assert info.value.suggestions == ("nvidia/nvidia-a100",)


def test_miss_with_an_empty_search_path() -> None:
    with pytest.raises(ConfigNotFoundError, match=r"searched nothing \(the search path is empty\)"):
        find_config("x", [])


def test_miss_still_reported_when_listing_hits_its_limit(
    dirs: list[SearchDir], monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(5):
        write(dirs[0].path / f"c{i}.toml", "")
    monkeypatch.setattr(limits_module, "MAX_LIST_ENTRIES", 3)  # search reads it when it lists
    with pytest.raises(ConfigNotFoundError, match="config 'c9' not found"):
        find_config("c9", dirs)


# --- listing -------------------------------------------------------------------------------


def test_list_configs(dirs: list[SearchDir], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    env, user, shipped = (d.path for d in dirs)
    write(shipped / "host" / "default.toml", 'description = "The host"')
    write(shipped / "aws" / "c5.json", '{"description": "shipped c5"}')
    write(user / "aws" / "c5.toml", 'description = "my c5"')
    write(user / "aws" / "c5.json", '{"description": "my c5 (json)"}')
    write(env / "broken.toml", "a = ")
    write(env / "nodesc.toml", "description = 3")
    write(env / ".hidden.toml", "")
    write(env / ".git" / "x.toml", "")
    write(env / "README.md", "")
    write(env / "bad:name.toml", "")
    outside = write(tmp_path / "outside" / "o.toml", "")
    (env / "o.toml").symlink_to(outside)
    (env / "loop").symlink_to(env, target_is_directory=True)  # must not recurse forever

    entries = list_configs([SearchDir(tmp_path / "missing", "TVMC_CONFIG_PATH"), *dirs])
    summary = [(e.name, e.directory.origin, e.path.suffix, e.description, e.shadowed) for e in entries]
    assert summary == [
        ("aws/c5", "user", ".toml", "my c5", False),
        ("aws/c5", "user", ".json", "my c5 (json)", False),  # beside c5.toml: both are errors
        ("aws/c5", "shipped", ".json", "shipped c5", True),
        ("bad:name", "TVMC_CONFIG_PATH", ".toml", None, False),
        ("broken", "TVMC_CONFIG_PATH", ".toml", None, False),
        ("host/default", "shipped", ".toml", "The host", False),
        ("nodesc", "TVMC_CONFIG_PATH", ".toml", None, False),
        ("o", "TVMC_CONFIG_PATH", ".toml", None, False),
    ]
    errors = {(e.name, e.path.suffix): e.error for e in entries if e.error}
    assert set(errors) == {
        ("aws/c5", ".toml"),
        ("aws/c5", ".json"),
        ("bad:name", ".toml"),
        ("broken", ".toml"),
        ("o", ".toml"),
    }
    ambiguous = (
        f"ambiguous: both {os.path.join('aws', 'c5.toml')} and {os.path.join('aws', 'c5.json')} are in {dirs[1]}"
    )
    assert errors["aws/c5", ".toml"] == errors["aws/c5", ".json"] == ambiguous + "; remove or rename one"
    assert (errors["bad:name", ".toml"] or "").startswith("no config name can ask for this file")
    assert errors["broken", ".toml"] == f"{os.path.join('env', 'broken.toml')}:1:5: invalid TOML: Invalid value"
    assert "outside its search directory" in (errors["o", ".toml"] or "")
    assert isinstance(entries[0], ConfigEntry)


def test_list_configs_of_a_huge_directory_is_refused(dirs: list[SearchDir], monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(5):
        write(dirs[0].path / f"c{i}.toml", "")
    monkeypatch.setattr(limits_module, "MAX_LIST_ENTRIES", 3)  # search reads it when it lists
    with pytest.raises(LimitError, match="holds more than 3 entries"):
        list_configs(dirs)


@pytest.mark.parametrize(
    "ref", ["./a\0.toml", "a\0b", "x" * 5000 + ".toml", "x" * 5000, "aws/" + "x" * 300, "~no-such-user/x", "~\0"]
)
def test_unusable_references_are_not_found_errors(dirs: list[SearchDir], ref: str) -> None:
    with pytest.raises(ConfigNotFoundError):
        find_config(ref, dirs)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from([*"a/.:\\~-_ C\0", "..", "x", "a/x", ".toml", ".json", "gpu"]), max_size=12).map("".join)
)
def test_any_reference_gives_a_layer_or_a_not_found_error(ref: str) -> None:
    # The search directory holds one config; nothing outside may ever be reached by name.
    try:
        layer = find_config(ref, [SearchDir(SEARCH_DIR, "user")], relative_to=SEARCH_DIR / "sub")
    except ConfigNotFoundError:
        return
    assert layer.data == {"a": 1}


# A NAME is looked up on the search path only; when it is a config file or a folder where a path
# would be read (the working directory for --config, the extending file's folder for extends),
# the miss says so, and a file is the did-you-mean: `-c myconf` beside ./myconf.toml.
def test_a_name_that_is_a_local_file_or_folder_says_so(dirs: list[SearchDir], tmp_path: Path) -> None:
    here = tmp_path / "here"
    write(here / "myconf.toml", 'targets = ["llvm"]\n')
    (here / "files" / "adir").mkdir(parents=True)
    with pytest.raises(ConfigNotFoundError) as miss:
        find_config("myconf", dirs, relative_to=here)
    assert miss.value.suggestions == ("./myconf.toml",)
    assert str(miss.value).endswith("; ./myconf.toml is here: give its path (did you mean './myconf.toml'?)")
    with pytest.raises(ConfigNotFoundError) as folder:
        find_config("files/adir", dirs, relative_to=here)
    assert str(folder.value).endswith("; ./files/adir is a folder, not a config file")
    with pytest.raises(ConfigNotFoundError) as slash:
        find_config("files/adir/", dirs, relative_to=here)
    assert str(slash.value).endswith("a name cannot have empty parts; ./files/adir is a folder, not a config file")
    with pytest.raises(ConfigNotFoundError) as elsewhere:  # nothing of the name here: no hint
        find_config("myconf", dirs, relative_to=tmp_path)
    assert "is here" not in str(elsewhere.value) and "folder" not in str(elsewhere.value)
