"""Where a path sits in a repository: the project's own code, or code beside it (examples,
benchmarks, scripts, docs sites, test helpers, fuzzing harnesses, vendored copies, copies set
aside, generated code). Retrieval keeps such code from crowding the project's own out of a
how-question's evidence; the answers rank and summarise by it."""

from __future__ import annotations

import re

__all__ = ["peripheral_path"]

_PERIPHERAL = frozenset(
    {
        "bench", "benches", "benchmarks", "benchmark", "perf", "examples", "example",
        "samples", "sample", "demo", "demos", "scripts", "docs", "doc", "docs_src", "site",
        "testdata", "fixtures", "test-helpers", "test_helpers", "testhelpers", "test-utils",
        "test_utils", "testutils", "testutil", "vendor", "vendored", "third_party",
        "third-party", "node_modules", "fuzz", "fuzzing", "fuzz_targets", "fuzzers",
    }
)  # fmt: skip


_SET_ASIDE = frozenset({"backup", "backups", "bak", "attic", "obsolete", "unused", "archived"})
_WORD_SEP = re.compile(r"[-_.]")
_SCRIPT_WORDS = frozenset(
    {"example", "examples", "demo", "demos", "bench", "benchmark", "benchmarks", "stress"}
)


# the names code generators give their output (protobuf, gRPC, Kubernetes' deepcopy, go
# generate, Dart builders, WinForms designers): the behaviour lives in what generates it
_GENERATED = (".pb.go", "_pb2.py", "_pb2_grpc.py", "_pb2.pyi", ".pb.cc", ".pb.h", "_pb.js",
              "_pb.d.ts", ".pb.ts", ".pb.gw.go", "_generated.go", ".gen.go",
              ".generated.ts", ".generated.js", ".g.dart", ".freezed.dart", ".designer.cs")  # fmt: skip


def peripheral_path(path: str) -> bool:
    """True for benchmarks, examples, scripts, docs sites, test helpers, fuzzing harnesses,
    vendored copies of other projects, copies set aside and generated code: code beside the
    project's own."""
    parts = path.lower().split("/")
    return (
        # `_vendor/` (pip's, bleach's), `__fixtures__/`: the same folders, marked private
        any(p.strip("_") in _PERIPHERAL for p in parts[:-1])
        # a copy set aside (`src-backup/`, `attic/`): no part of what is built
        or any(w in _SET_ASIDE for p in parts[:-1] for w in _WORD_SEP.split(p))
        # a script beside the package at the top (`examples.js`, `tsan_stress_simplejson.py`)
        or (len(parts) == 1 and any(w in _SCRIPT_WORDS for w in _WORD_SEP.split(parts[0])))
        or parts[-1].endswith(_GENERATED)
        or parts[-1].startswith("zz_generated")
    )
