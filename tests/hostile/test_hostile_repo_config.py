"""Issue 14 items 1, 7, 9: a cloned repository's own settings cannot steer ragstrata.

A hostile ``ragstrata.toml`` points the LLM (or the embedder) at a loopback server and names
``GITHUB_TOKEN`` as the key variable: ``index`` and ``ask`` must refuse with one line naming
the key and the file (exit 2), and the server must receive nothing. What is about the repository
(excludes, chunking within bounds, glossary files inside it) still works; ``--trust-repo-config``
lets the user accept the rest. The index folder is one folder name; numeric bounds hold from
every source.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from hostile.hostile_util import clean_env, run_cli, run_proc, write_tree
from ragstrata.errors import ConfigError
from ragstrata.settings import load_settings
from test_llm_providers import ProviderServer, openai_app

FILES = {"pay/gateway.py": 'def charge(amount):\n    """Charge."""\n    return amount\n'}


@pytest.fixture
def trap() -> Iterator[ProviderServer]:
    server = ProviderServer(openai_app({"gpt-4o-mini": 0, "emb": 8}, key="ghp_" + "x" * 36))
    yield server
    server.close()


def _hostile(root: Path, server: ProviderServer, section: str = "llm") -> Path:
    model = "gpt-4o-mini" if section == "llm" else "emb"
    body = (
        f'[{section}]\nprovider = "openai"\nbase_url = "{server.root}/v1"\n'
        f'model = "{model}"\napi_key_env = "GITHUB_TOKEN"\n'
    )
    return write_tree(root, {**FILES, "ragstrata.toml": body})


@pytest.mark.parametrize("section", ["llm", "embedder"])
@pytest.mark.parametrize("command", ["index", "ask"])
def test_hostile_repo_config_is_refused_and_sends_nothing(
    tmp_path: Path, trap: ProviderServer, section: str, command: str
) -> None:
    root = _hostile(tmp_path / "clone", trap, section)
    env = clean_env(GITHUB_TOKEN="ghp_" + "x" * 36)
    args = (
        ["index", str(root)]
        if command == "index"
        else ["ask", "what is charge?", "--repo", str(root)]
    )
    proc = run_proc(*args, env=env)
    assert proc.returncode == 2, proc.stderr
    line = proc.stderr.strip()
    assert "\n" not in line and f"{section}.base_url" in line and f"{section}.api_key_env" in line
    assert str(root / "ragstrata.toml") in line and "--trust-repo-config" in line
    assert "ghp_" not in proc.stderr + proc.stdout
    assert trap.requests == []
    assert not (root / ".ragstrata").exists()


def test_pyproject_section_is_held_to_the_same_rule(tmp_path: Path, trap: ProviderServer) -> None:
    body = f'[tool.ragstrata.llm]\nprovider = "openai"\nbase_url = "{trap.root}/v1"\n'
    root = write_tree(tmp_path / "clone", {**FILES, "pyproject.toml": body})
    with pytest.raises(ConfigError, match=r"pyproject\.toml sets llm\.provider, llm\.base_url"):
        load_settings(root, env={})


@pytest.mark.parametrize(
    ("section", "line"),
    [
        ("store", 'url = "postgresql://evil.example/db"'),
        ("store", 'index_dir_name = "x"'),
        ("embedder", 'provider = "hash"'),
        ("embedder", 'document_template = "{text}"'),
        ("llm", 'price_file = "/etc/passwd"'),
        ("router", 'classifier = "llm"'),
    ],
)
def test_every_non_repository_key_is_refused(tmp_path: Path, section: str, line: str) -> None:
    write_tree(tmp_path, {"ragstrata.toml": f"[{section}]\n{line}\n"})
    key = re.escape(f"{section}.{line.split(' =')[0]}")
    with pytest.raises(ConfigError, match=rf"sets {key}, which a repository may not choose"):
        load_settings(tmp_path, env={})


def test_repository_keys_still_work(tmp_path: Path) -> None:
    (tmp_path / "terms.tsv").write_text("платёж\tpayment\n", encoding="utf-8")
    write_tree(
        tmp_path,
        {
            "ragstrata.toml": '[index]\nexclude = ["vendor/**"]\nchunk_size = 800\n'
            'chunk_overlap = 100\n[router]\nglossary_files = ["terms.tsv"]\n'
        },
    )
    s = load_settings(tmp_path, env={})
    assert s.index.exclude == ("vendor/**",) and s.index.chunk_size == 800
    assert s.router.glossary_files == (tmp_path / "terms.tsv",)


@pytest.mark.parametrize("entry", ["../outside.tsv", "/etc/hostname", "link/x.tsv"])
def test_repository_glossary_must_stay_inside(tmp_path: Path, entry: str) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (tmp_path / "outside.tsv").write_text("a\tb\n", encoding="utf-8")
    (repo / "link").symlink_to(tmp_path, target_is_directory=True)
    write_tree(repo, {"ragstrata.toml": f'[router]\ncue_files = ["{entry}"]\n'})
    with pytest.raises(ConfigError, match="outside the repository"):
        load_settings(repo, env={})


def test_unknown_repository_key_names_file_and_key(tmp_path: Path) -> None:
    write_tree(tmp_path, {"ragstrata.toml": "[index]\nchunk_sise = 10\n"})
    with pytest.raises(ConfigError, match=r"ragstrata\.toml: unknown setting index\.chunk_sise"):
        load_settings(tmp_path, env={})


def test_trust_flag_accepts_the_repository_file(tmp_path: Path) -> None:
    write_tree(tmp_path, {**FILES, "ragstrata.toml": '[embedder]\nprovider = "hash"\n'})
    assert load_settings(tmp_path, env={}, trust_repo_config=True).embedder.provider == "hash"
    code, _, err = run_cli("index", str(tmp_path))
    assert code == 2 and "embedder.provider" in err
    code, _, err = run_cli("index", str(tmp_path), "--trust-repo-config")
    assert code == 0, err


def test_user_config_file_is_the_place_for_providers(tmp_path: Path) -> None:
    user = write_tree(
        tmp_path / "xdg",
        {"ragstrata/config.toml": '[llm]\nprovider = "openai"\nbase_url = "http://h/v1"\n'},
    )
    s = load_settings(tmp_path, env={"XDG_CONFIG_HOME": str(user)})
    assert s.llm.provider == "openai" and s.llm.base_url == "http://h/v1"
    # HOME/.config when XDG_CONFIG_HOME is not set
    home = write_tree(tmp_path / "home", {".config/ragstrata/config.toml": "[llm]\nmodel = 'm'\n"})
    assert load_settings(None, env={"HOME": str(home)}).llm.model == "m"


# ------------------------------------------------------------------ item 7: the index folder


@pytest.mark.parametrize("name", ["../x", "/tmp/x", "a/b", "..", ".", "", "x\ny"])
def test_index_dir_name_is_one_folder_name(tmp_path: Path, name: str) -> None:
    with pytest.raises(ConfigError, match=r"store\.index_dir_name"):
        load_settings(tmp_path, env={"RAGSTRATA_STORE_INDEX_DIR_NAME": name})


def test_index_dir_outside_the_repository_is_never_written(tmp_path: Path) -> None:
    repo = write_tree(tmp_path / "repo", FILES)
    proc = run_proc("index", str(repo), env=clean_env(RAGSTRATA_STORE_INDEX_DIR_NAME="../escape"))
    assert proc.returncode == 2 and "index_dir_name" in proc.stderr
    assert not (tmp_path / "escape").exists()


# ------------------------------------------------------------------ item 9: numeric bounds


@pytest.mark.parametrize(
    ("env", "field"),
    [
        ({"RAGSTRATA_INDEX_CHUNK_SIZE": "1200", "RAGSTRATA_INDEX_CHUNK_OVERLAP": "1199"}, "index"),
        ({"RAGSTRATA_INDEX_CHUNK_OVERLAP": "5000"}, "index"),
        ({"RAGSTRATA_INDEX_CHUNK_SIZE": "1"}, "index.chunk_size"),
        ({"RAGSTRATA_INDEX_MAX_FILE_BYTES": str(10**12)}, "index.max_file_bytes"),
        ({"RAGSTRATA_EMBEDDER_BATCH_SIZE": "1000000"}, "embedder.batch_size"),
        ({"RAGSTRATA_EMBEDDER_DIMENSIONS": "-1"}, "embedder.dimensions"),
        ({"RAGSTRATA_LLM_MAX_RETRIES": "1000"}, "llm.max_retries"),
        ({"RAGSTRATA_LLM_TIMEOUT_S": "0"}, "llm.timeout_s"),
        ({"RAGSTRATA_LLM_TIMEOUT_S": "1e9"}, "llm.timeout_s"),
        ({"RAGSTRATA_EMBEDDER_REQUESTS_PER_S": "1e12"}, "embedder.requests_per_s"),
    ],
)
def test_numeric_bounds_from_the_environment(env: dict[str, str], field: str) -> None:
    with pytest.raises(ConfigError, match=rf"invalid setting '{field}"):
        load_settings(None, env=env)


def test_overlap_amplification_is_refused_from_the_repository_file(tmp_path: Path) -> None:
    big = "".join(f"line_{i} = {i}\n" for i in range(8000))  # ~110 KB
    write_tree(tmp_path, {"big.py": big, "ragstrata.toml": "[index]\nchunk_overlap = 1199\n"})
    code, _, err = run_cli("index", str(tmp_path))
    assert code == 2 and "chunk_overlap" in err and "\n" not in err.strip()
    assert not (tmp_path / ".ragstrata").exists()


def test_numeric_flags_have_bounds() -> None:
    for args in (["search", "x", "--top-k", "100000000"], ["serve", "--max-body-bytes", "1e12"]):
        code, _, err = run_cli(*args)
        assert code == 2 and "\n" not in err.strip(), err
