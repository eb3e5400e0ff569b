"""scripts/legacy_tags.py: reading tag configs out of a tag.cc (a synthetic one, in TVM's style)."""

from __future__ import annotations

from testkit import load_script

SOURCE = """
#if TVM_LLVM_HAS_AARCH64_TARGET
TVM_REGISTER_TARGET_TAG("board/one")
    .set_config({{"kind", String("llvm")},
                 {"mattr", Array<String>{"+neon"}},
                 {"num-cores", runtime::Int(4)},
                 {"host", Map<String, ObjectRef>{{"kind", String("llvm")}, {"mcpu", String("a72")}}}});
#endif

#define REGISTER_GPU(Name, Arch, Mem) \\
  TVM_REGISTER_TARGET_TAG(Name).set_config({ \\
      {"kind", String("cuda")}, {"arch", String(Arch)}, {"max_shared_memory_per_block", runtime::Int(Mem)}, \\
      {"keys", Array<String>{"cuda", "gpu"}}, \\
  })

#if NEW_LLVM
#define HOST_CPU "new"
REGISTER_GPU("gpu/a", "sm_80", 49152);
#else
REGISTER_GPU("gpu/never", "sm_10", 1);
#endif
REGISTER_GPU("gpu/b", "sm_53", 32768);
"""


def test_macros_branches_and_initializers() -> None:
    tags = load_script("legacy_tags").tag_configs(SOURCE)
    assert tags == {
        "board/one": {
            "kind": "llvm",
            "mattr": ["+neon"],
            "num-cores": 4,
            "host": {"kind": "llvm", "mcpu": "a72"},
        },
        "gpu/a": {"kind": "cuda", "arch": "sm_80", "max_shared_memory_per_block": 49152, "keys": ["cuda", "gpu"]},
        "gpu/b": {"kind": "cuda", "arch": "sm_53", "max_shared_memory_per_block": 32768, "keys": ["cuda", "gpu"]},
    }
