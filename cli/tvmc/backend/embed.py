"""The TVM side of a library's manifest (issue 27): its signature, versions and the CPU features its
code needs, read where the build runs (the build child, or the `--emit python` script).

Each function here is self-contained (its imports inside, no module globals but its arguments):
`tvmc.emit.python` copies their source into the script it writes (`inspect.getsource`), so the
script records the same manifest as `tvmc compile`. TVM has no type hints: its objects are `Any`.
"""

from __future__ import annotations

from typing import Any


def relax_signature(mod: Any) -> dict[str, Any]:
    """main's parameters (name, shape, dtype) and results (shape, dtype) as the library takes and
    gives them: an int dimension is fixed, a str one is dynamic (its symbolic name)."""

    def dims(shape: Any) -> list[Any] | None:
        values = getattr(shape, "values", None)
        if values is None:
            return None
        return [int(d.value) if hasattr(d, "value") else str(d) for d in values]

    def tensors(ty: Any) -> list[dict[str, Any]]:
        fields = getattr(ty, "fields", None)
        if fields is not None:  # a tuple, possibly nested: flattened, as the VM's results are
            return [t for field in fields for t in tensors(field)]
        return [{"shape": dims(getattr(ty, "shape", None)), "dtype": str(getattr(ty, "dtype", ""))}]

    main = mod["main"]
    inputs = []
    for param in main.params:
        (tensor,) = tensors(param.ty)[:1] or [{"shape": None, "dtype": ""}]
        inputs.append({"name": str(param.name), **tensor})
    return {"inputs": inputs, "outputs": tensors(main.ret_ty)}


def onnx_signature(path: str) -> dict[str, Any]:
    """The ONNX graph's inputs (its own shapes: a dynamic dimension by its dim_param) and outputs by
    name, and for an integer input that indexes a constant tensor (Gather, GatherElements) the range
    of valid indices, or `indexes: true` when that range is unknown."""
    import onnx

    model = onnx.load(path, load_external_data=False)
    graph = model.graph
    initializers = {i.name: list(i.dims) for i in graph.initializer}

    def tensor(value: Any) -> dict[str, Any]:
        kind = value.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else (d.dim_param or "?") for d in kind.shape.dim]
        return {"name": value.name, "shape": shape, "dtype": str(onnx.helper.tensor_dtype_to_np_dtype(kind.elem_type))}

    inputs = [tensor(v) for v in graph.input if v.name not in initializers]
    known = {v["name"]: v["shape"] for v in inputs} | initializers
    by_name = {i["name"]: i for i in inputs}
    for node in graph.node:
        if node.op_type not in ("Gather", "GatherElements") or len(node.input) < 2:
            continue
        target = by_name.get(node.input[1])
        if target is None or not target["dtype"].startswith(("int", "uint")):
            continue
        axis = next((a.i for a in node.attribute if a.name == "axis"), 0)
        data = known.get(node.input[0])
        size = data[axis] if isinstance(data, list) and -len(data) <= axis < len(data) else None
        if isinstance(size, int) and size > 0:
            low, high = target.get("index-range", [0, size])
            target["index-range"] = [low, min(high, size)]
        else:
            target["indexes"] = True
    return {"inputs": inputs, "outputs": [tensor(v) for v in graph.output]}


def code_features(target: dict[str, Any], isa_pattern: str) -> dict[str, Any]:
    """The instruction-set features the llvm code of `target` needs (LLVM's view of its mcpu and
    mattr), and the architecture it is for; empty for generic code of an architecture."""
    import importlib
    import re

    tvm = importlib.import_module("tvm")
    codegen = importlib.import_module("tvm.target.codegen")

    isa = re.compile(isa_pattern)
    triple_here = str(codegen.llvm_get_system_triple())
    needed: set[str] = set()
    arch = None
    for node in (target, target.get("host"), *(target.get("devices") or ())):
        if not isinstance(node, dict) or node.get("kind") != "llvm":
            continue
        triple = str(node.get("mtriple") or triple_here)
        arch = arch or triple.split("-", 1)[0]
        spec = {k: node[k] for k in ("mtriple", "mcpu", "mattr") if node.get(k)}
        if "mcpu" not in spec and not any(str(a).startswith("+") for a in spec.get("mattr", ())):
            continue  # generic code: runs on any CPU of the architecture
        features = codegen.llvm_get_cpu_features(tvm.target.Target({"kind": "llvm", "mtriple": triple, **spec}))
        needed |= {str(f) for f in features if isa.fullmatch(str(f))}
    return {"arch": arch, "features": sorted(needed)}


def complete_manifest(
    base: dict[str, Any], mod: Any, target: dict[str, Any], tuned: Any, isa_pattern: str
) -> dict[str, Any]:
    """The manifest `base` (what tvmc knew before the build) with what only the build knows: TVM's and
    LLVM's versions, the library's signature named as the model names it, the CPU features."""
    import importlib

    tvm = importlib.import_module("tvm")
    codegen = importlib.import_module("tvm.target.codegen")
    doc = dict(base)
    doc["tvm"] = str(tvm.__version__)
    doc["llvm"] = str(codegen.llvm_version_major()) if hasattr(codegen, "llvm_version_major") else None
    signature = relax_signature(mod)
    model = base.get("model", {})
    original = None
    if model.get("format") == "onnx" and model.get("path"):
        try:
            original = onnx_signature(model["path"])
        except Exception:  # the build read the model already: a second read that fails only loses names
            original = None
    if original is not None:
        declared = {i["name"]: i for i in original["inputs"]}
        for entry in signature["inputs"]:
            found = declared.get(entry["name"], {})
            entry["model-shape"] = found.get("shape", entry["shape"])
            for key in ("index-range", "indexes"):
                if key in found:
                    entry[key] = found[key]
        if len(original["outputs"]) == len(signature["outputs"]):
            for entry, named in zip(signature["outputs"], original["outputs"], strict=True):
                entry["name"] = named["name"]
    for index, entry in enumerate(signature["outputs"]):
        entry.setdefault("name", f"output_{index}")
    doc["inputs"], doc["outputs"] = signature["inputs"], signature["outputs"]
    doc["model"] = {k: v for k, v in model.items() if k != "path"}  # the name is kept, not where it was
    doc["cpu-features"] = code_features(target, isa_pattern)
    tuning = dict(doc.get("tuning") or {})
    if tuned is not None:
        tuning["kernels-from-records"], tuning["kernels"] = int(tuned[0]), int(tuned[1])
    doc["tuning"] = tuning
    return doc
