"""Semantic rules over a resolved tree: everything the schema cannot say about one file.

Each rule collects every violation (unlike `canonicalize_config`, which stops at the first) and
reports it at the pointer of the key that causes it; the runner turns pointers into file:line:col
through the tree's origins. Subtrees with structural errors are skipped, so one typo is reported
once, by the check that understands it best.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from tvmc import registry, versions
from tvmc import targets as tg
from tvmc.errors import Location, TargetError, TvmcError
from tvmc.keys import (
    LEGACY_DEFAULT_KIND,
    canonical_build,
    component_table,
    modern_build_problems,
    pass_config_entries,
)
from tvmc.pointers import display_path, join
from tvmc.targets.llvm_names import name_problems
from tvmc.validate import model
from tvmc.validate.canon import Target, canonicalize
from tvmc.validate.checks import check_document, completeness_findings, first, suggest
from tvmc.validate.diagnostics import Finding

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tvmc.validate.diagnostics import Severity

StringStart = Callable[[str], Location | None]


class _Rules:
    def __init__(
        self,
        data: Mapping[str, Any],
        structural: list[Finding],
        strict: bool,
        partial: bool,
        string_start: StringStart | None,
        reader: tg.TargetReader | None = None,
    ) -> None:
        self.data = data
        self.reader = reader  # the targets of `data`, read once and shared with canonicalization
        self.partial = partial  # only this file's document: values a parent would add are unknown
        broken = {f.pointer for f in structural if f.severity == "error"}
        self.broken = broken
        # Every pointer at or above a broken one: `clean` is then a few set look-ups, not a scan of
        # every finding per target (which made validation quadratic in the number of targets).
        self.above_broken = {p[:i] for p in broken for i, c in enumerate(p + "/") if c == "/" and i}
        self.string_start = string_start
        self.findings: list[Finding] = []
        version = data.get("tvm-version")
        generation = versions.generation(version)
        self.generation = generation  # what the config's `tvm-version` admits, read once
        # A config that declares legacy TVM may use legacy features; one that declares modern TVM may not.
        self.legacy_ok = generation == "legacy"
        self.legacy_severity: Severity = "error" if strict or generation == "modern" else "warning"
        self.legacy_why = (
            f" (an error: tvm-version {version!r} targets TVM >= 0.25)"
            if generation == "modern"
            else " (an error: --strict)"
            if strict
            else ""
        )

    def add(
        self,
        rule: str,
        pointer: str,
        message: str,
        suggestion: str | None = None,
        severity: Severity = "error",
        location: Location | None = None,
        hint: str | None = None,
    ) -> None:
        self.findings.append(Finding(rule, pointer, message, suggestion, severity, location, hint))

    def clean(self, pointer: str) -> bool:
        """No structural error at or below `pointer` (nor at an ancestor: a wrong-typed container)."""
        if not self.broken:  # the common case: a document without structural errors
            return True
        if pointer in self.above_broken:
            return False
        return not any(b and (pointer == b or pointer.startswith(b + "/")) for b in self.broken)

    # ---- targets -------------------------------------------------------------------------------

    def canonical(self, raw: Any, pointer: str) -> Target | None:
        try:
            if self.reader is not None:
                value = self.reader.read(raw)
                canonical, compiler, lifted = dict(value.canonical), value.compiler, dict(value.lifted)
            else:
                canonical, compiler, lifted = canonicalize(raw)
        except TargetError as err:
            problem, at = err, None
            start = self.string_start(pointer) if self.string_start and isinstance(raw, str) else None
            if start is not None:  # again, uncached, to get the column inside the string
                try:
                    canonicalize(raw, start)
                except TargetError as located_err:
                    problem = located_err
                    at = located_err.location if located_err.location != start else None
            option = problem.option
            where = join(pointer, option) if option is not None and isinstance(raw, dict) and option in raw else pointer
            self.add(
                problem.rule or "invalid-target",  # the grammar's rule (`unknown-option`, ...), as for a flag
                where,
                problem.message,
                first(list(problem.suggestions)),
                location=at,
                hint=problem.hint,
            )
            return None
        return Target(pointer, raw, canonical, compiler, lifted)

    def nodes(self, raw: Any, canonical: Mapping[str, Any], pointer: str) -> Iterator[tuple[str, str, Any]]:
        """(pointer, kind, raw node) of a target and of its nested hosts and composite devices, walking
        the canonical target (which knows every kind) beside the raw one (which knows the pointers)."""
        yield pointer, str(canonical.get("kind")), raw
        nested = isinstance(raw, dict)
        host = canonical.get("host")
        if isinstance(host, Mapping):
            inside = nested and "host" in raw
            yield from self.nodes(raw["host"] if inside else None, host, join(pointer, "host") if inside else pointer)
        devices = canonical.get("devices")
        if canonical.get("kind") == "composite" and isinstance(devices, list):
            raw_devices = raw.get("devices") if nested else None
            for index, device in enumerate(devices):
                if not isinstance(device, Mapping):
                    continue
                if isinstance(raw_devices, list) and index < len(raw_devices):
                    yield from self.nodes(raw_devices[index], device, join(join(pointer, "devices"), index))
                else:
                    yield from self.nodes(None, device, pointer)

    def legacy(self, target: Target) -> None:
        if self.legacy_ok:
            return
        for pointer, kind_name, raw in self.nodes(target.raw, target.canonical, target.pointer):
            written = raw.get("kind") if isinstance(raw, dict) else None
            kind = registry.all_kinds().get(written if isinstance(written, str) else kind_name)  # before renames
            if kind is None:
                continue
            if kind.legacy:
                where = join(pointer, "kind") if isinstance(raw, dict) and "kind" in raw else pointer
                comp = registry.compilers().get(kind.name)
                instead = (
                    f"; TVM >= 0.25 writes it as a 'compiler' of a {_device(kind.device_type)} target"
                    if comp
                    else f"; TVM renamed it to {kind.renamed_to!r}"
                    if kind.renamed_to
                    else ""
                )
                self.add(
                    "legacy-kind",
                    where,
                    f"target kind {kind.name!r} only exists in legacy TVM (last in "
                    f"{kind.last_version}){instead}{self.legacy_why}",
                    severity=self.legacy_severity,
                )
            if isinstance(raw, dict) and kind.legacy_options:
                for opt in raw:
                    old = kind.legacy_options.get(opt)
                    if old is not None:
                        moved = f"; write {old.lifts_to} instead" if old.lifts_to else ""
                        self.add(
                            "legacy-option",
                            join(pointer, opt),
                            f"{opt!r} is a target option only legacy TVM "
                            f"({', '.join(old.versions)}) has{moved}{self.legacy_why}",
                            severity=self.legacy_severity,
                        )
            elif isinstance(raw, str) and target.lifted and pointer == target.pointer:
                moved = ", ".join(f"{s}.{k}" for s, opts in target.lifted.items() for k in opts)
                self.add(
                    "legacy-option",
                    pointer,
                    f"the target string sets {moved}, which only legacy TVM keeps "
                    f"in a target; write them in the config{self.legacy_why}",
                    severity=self.legacy_severity,
                )
            tag = (
                raw if isinstance(raw, str) else raw.get("tag") if isinstance(raw, dict) and "kind" not in raw else None
            )
            renamed = registry.renamed_tag(tag) if isinstance(tag, str) else None
            if renamed is not None:
                at = pointer if isinstance(raw, str) else join(pointer, "tag")
                self.add(
                    "legacy-tag",
                    at,
                    f"tag {tag!r} only exists in legacy TVM{self.legacy_why}",
                    renamed,
                    severity=self.legacy_severity,
                )

    def string_alignments(self, target: Target) -> None:
        """A byte alignment a target string sets (`c -workspace-byte-alignment=24`), and its host's:
        a table's are checked where it is written (checks.Checker.alignment)."""
        if not isinstance(target.raw, str):
            return
        host = target.canonical.get("host")
        for node in (target.canonical, host if isinstance(host, Mapping) else {}):
            for opt, value in node.items():
                problem = model.alignment_problem(opt, value) if type(value) is int else None
                if problem is not None:
                    self.add("invalid-value", target.pointer, f"{opt}: {problem}")

    def compiler(self, target: Target) -> None:
        if target.compiler is None:
            return
        comp = registry.compilers().get(target.compiler)
        if comp is None:
            return  # unknown-compiler (structural) already said so
        where = join(target.pointer, "compiler") if isinstance(target.raw, dict) else target.pointer
        if comp.partition is None and self.generation == "modern":
            self.add(  # the build plan's rule: relax partitions only with a partition function
                "compiler-mismatch",
                where,
                f"compiler {target.compiler!r} has no relax partition function in TVM {registry.tvm_version()}"
                f"{self.legacy_why}",
            )
            return
        if problem := tg.compiler_mismatch(comp, target.canonical):
            self.add(tg.COMPILER_MISMATCH, where, problem)

    def llvm_names(self, target: Target, config_host: Mapping[str, Any] | None = None) -> None:
        """mcpu, mattr and cuda arch are names TVM's LLVM knows (tvmc.targets.llvm_names); a config
        for legacy TVM is built by another LLVM, whose names tvmc does not have. A target's own
        host that is the config's host is checked once, as the host (`config_host`)."""
        if self.legacy_ok:
            return
        same_host = config_host is not None and target.canonical.get("host") == config_host
        for problem in name_problems(target.canonical):
            if same_host and problem.path[:1] == ("host",):
                continue
            raw, pointer = target.raw, target.pointer
            for key in problem.path:  # as deep as the written target goes
                inside = raw.get(key) if isinstance(raw, dict) and isinstance(key, str) else None
                if inside is None and isinstance(raw, list) and isinstance(key, int) and key < len(raw):
                    inside = raw[key]
                if inside is None:
                    break
                raw, pointer = inside, join(pointer, key)
            # A value a TVM tag brings (not written here): TVM's own data, so a warning.
            tagged = (isinstance(raw, str) and registry.is_tag(raw)) or (
                isinstance(raw, dict) and "tag" in raw and "kind" not in raw
            )
            message = f"{problem.message} (from the TVM tag: it builds generic code)" if tagged else problem.message
            self.add("unknown-cpu", pointer, message, problem.suggestion, "warning" if tagged else "error")

    def hosts(self, targets: list[Target], host: Target | None) -> None:
        if host is not None:
            # The same canonical host resolution judges (validation keeps `compiler` apart).
            whole = host.canonical if host.compiler is None else {**host.canonical, "compiler": host.compiler}
            self.cpu_side(whole, host.pointer, host.raw, "the host")
        own_hosts = [t.canonical["host"] if isinstance(t.canonical.get("host"), dict) else None for t in targets]
        if all(own is None for own in own_hosts):
            return  # the common case: no target has a host of its own, so none can conflict
        conflicts = tg.host_conflicts(own_hosts, host.canonical if host is not None else None)
        against_host = {c.target: c for c in conflicts if c.other is None}
        for index, (t, own) in enumerate(zip(targets, own_hosts, strict=True)):
            if own is None or (host is not None and own == host.canonical):
                continue  # none, or the config's host: checked once, as the host
            where = join(t.pointer, "host") if isinstance(t.raw, dict) and "host" in t.raw else t.pointer
            self.cpu_side(
                own,
                where,
                t.raw.get("host") if isinstance(t.raw, dict) else None,
                f"the host of targets[{t.pointer.rsplit('/', 1)[1]}]",
            )
            if index in against_host:
                self.add(tg.HOST_CONFLICT, where, against_host[index].message())
        for conflict in conflicts:
            if conflict.other is not None:
                t = targets[conflict.target]
                where = join(t.pointer, "host") if isinstance(t.raw, dict) and "host" in t.raw else t.pointer
                self.add(tg.HOST_CONFLICT, where, conflict.message(_show(targets[conflict.other].pointer)))

    def cpu_side(self, canonical: Mapping[str, Any], pointer: str, raw: Any, what: str) -> None:
        problem = tg.host_problem(canonical)
        if problem is not None:
            where = join(pointer, "kind") if isinstance(raw, dict) and "kind" in raw else pointer
            self.add(tg.HOST_NOT_CPU, where, f"{what} {problem}")

    def devices(self, targets: list[Target]) -> None:
        if len(targets) < 2:
            return  # one target has its device to itself
        for clash in tg.device_clashes([(t.canonical, t.compiler) for t in targets]):
            later, earlier = targets[clash.later], targets[clash.earlier]
            self.add(tg.DUPLICATE_DEVICE, later.pointer, clash.message(_show(earlier.pointer)))

    # ---- executor / runtime ----------------------------------------------------------------------

    def components(self, targets: list[Target]) -> None:
        for section in ("executor", "runtime"):
            value = self.data.get(section)
            if value is None and not any(section in t.lifted for t in targets):
                continue  # nothing sets it: nothing to check
            at = join("", section)
            table = component_table(value)  # `executor = "aot"` is { kind = "aot" }, written at /executor
            explicit = table if isinstance(table, dict) and self.clean(at) else {}
            effective: dict[str, tuple[Any, str]] = {}
            for t in targets:  # legacy target strings/options lift settings; explicit ones win
                for opt, setting in t.lifted.get(section, {}).items():
                    effective.setdefault(opt, (setting, t.pointer))
            effective.update({opt: (v, at if table is not value else join(at, opt)) for opt, v in explicit.items()})
            lifting = [t for t in targets if section in t.lifted]
            if "kind" not in effective and lifting:  # options with no kind: legacy TVM's default kind,
                effective["kind"] = (LEGACY_DEFAULT_KIND[section], lifting[0].pointer)  # as keys.with_lifted
            kind, kind_at = effective.get("kind", (None, ""))
            comp = registry.components(section).get(kind) if isinstance(kind, str) else None
            if comp is None:
                continue
            for opt, (setting, at) in effective.items():
                if opt == "kind" or opt in explicit:
                    continue  # the explicit table's own options are checked with the document
                if opt not in comp.options:  # lifted from a target
                    owners = [c.name for c in registry.components(section).values() if opt in c.options]
                    self.add(
                        "wrong-kind-option",
                        at,
                        f"the target string sets {section}.{opt}, not an option of {section} {kind!r}"
                        + (f": it belongs to {' and '.join(owners)}" if owners else ""),
                    )
                elif comp.options[opt].enum and setting not in comp.options[opt].enum:
                    # the target parser types a lifted value but knows no enum: `-interface-api=zz`
                    # reached canonicalization (`config.component`) unrefused
                    self.add(
                        "invalid-value",
                        at,
                        f"the target string sets {section}.{opt} = {setting!r}, not one of "
                        + ", ".join(comp.options[opt].enum),
                    )
            if comp.generations == ("legacy",) and not self.legacy_ok:
                self.add(
                    "legacy-component",
                    kind_at,
                    f"{section} {kind!r} only exists in legacy TVM (<= 0.19){self.legacy_why}",
                    severity=self.legacy_severity,
                )
            if section == "executor" and kind == "aot":
                api, api_at = effective.get("interface-api", ("packed", ""))
                unpacked = effective.get("unpacked-api", (False, ""))[0]
                unknown = self.partial and "unpacked-api" not in effective  # a parent may set it
                if api == "c" and unpacked is not True and not unknown:
                    self.add(
                        "aot-interface-api",
                        api_at,
                        "interface-api = 'c' needs unpacked-api = true "
                        "(the C interface calls operators with unpacked arguments)",
                    )

    def pass_configs(self) -> None:
        """Names the config's TVM generation does not register, and one config set twice under two
        spellings with different values: the rules of `config.canonical_pass_config`."""
        table = self.data.get("pass-config")
        if not isinstance(table, dict) or not self.clean("/pass-config"):
            return
        generation = self.generation
        seen: dict[str, tuple[str, Any]] = {}
        for entry in pass_config_entries(table, generation):
            if entry.type is None:
                known = registry.pass_configs_of(generation)
                self.add(
                    "unknown-pass-config",
                    entry.pointer,
                    "TVM registers no PassContext config of this name",
                    suggest(entry.canonical, list(known)),
                )
                continue
            if generation is None and entry.canonical not in registry.pass_configs():
                # Written for no TVM in particular, but only the old releases register it (relay.*):
                # a build for TVM >= 0.25 refuses it, as the graph executor's legacy-component says.
                self.add(
                    "legacy-pass-config",
                    entry.pointer,
                    f"{entry.canonical!r} is a PassContext config only legacy TVM (<= 0.19) registers{self.legacy_why}",
                    severity=self.legacy_severity,
                )
            if entry.canonical in seen and seen[entry.canonical][1] != entry.value:
                self.add(
                    "pass-config-type",
                    entry.pointer,
                    f"the same config as {seen[entry.canonical][0]!r}, with another value",
                )
            else:
                seen[entry.canonical] = (entry.name, entry.value)

    def one_plain_target(self, targets: list[Target]) -> None:
        """For a config written for TVM >= 0.25: relax.build compiles for one target (with BYOC
        `compiler` refinements) and its host — the build plan's rule (`targets.second_target`)."""
        if self.generation != "modern":
            return
        second = tg.second_target([(t.canonical, t.compiler) for t in targets])
        if second is not None:
            t = targets[second]
            self.add(
                "invalid-target",
                t.pointer,
                f"{tg.second_target_message(t.canonical['kind'])}; {tg.SECOND_TARGET_HINT}",
            )

    def build(self) -> None:
        """For a config written for TVM >= 0.25: what its build (relax) cannot do, the list the
        build plan refuses (`keys.modern_build_problems`)."""
        build = self.data.get("build")
        modern = self.generation == "modern"
        if not modern or not isinstance(build, dict) or not self.clean("/build"):
            return
        for problem in modern_build_problems(canonical_build(build, "modern")):
            self.add(problem.rule, problem.pointer, f"{problem.message}{self.legacy_why}")

    def release(self) -> None:
        """For a config written for TVM <= 0.19: what the release it is for lacks
        (`validate.legacy.problems`, the rules `--emit tvmc`/`--emit relay` refuse with)."""
        if not self.legacy_ok or self.partial or any(f.severity == "error" for f in self.findings):
            return
        from tvmc.validate import legacy  # the printer and old releases' registries: legacy configs only

        try:
            gen = legacy.choose(self.data.get("tvm-version"), None)
            found = legacy.view(self.data, self.reader)
        except TvmcError:  # a release tvmc has no rules for
            return
        if found is None:  # no targets: a mixin
            return
        config, written = found
        for problem in legacy.problems(config, gen):
            self.add(legacy.RULE, written.get(problem.pointer, problem.pointer), problem.message, hint=problem.hint)

    def tvm_version(self) -> None:
        """A `tvm-version` must admit a release tvmc supports (`registry.supports`): the emitters
        and the build plan refuse one that admits none (0.17, 0.21)."""
        spec = self.data.get("tvm-version")
        if isinstance(spec, str) and self.clean("/tvm-version") and not registry.supports(spec):
            self.add(
                "unsupported-tvm-version",
                "/tvm-version",
                f"{spec!r} admits no TVM release tvmc supports: {registry.supported_releases()}",
            )

    def run(self) -> list[Finding]:
        self.tvm_version()
        self.pass_configs()
        self.build()
        targets: list[Target] = []
        raw_targets = self.data.get("targets")
        if isinstance(raw_targets, list):
            for index, raw in enumerate(raw_targets):
                pointer = join("/targets", index)
                if self.clean(pointer):
                    found = self.canonical(raw, pointer)
                    if found is not None:
                        targets.append(found)
        host = None
        if "host" in self.data and self.clean("/host"):
            host = self.canonical(self.data["host"], "/host")
        for t in [*targets, *([host] if host else [])]:
            self.legacy(t)
            self.string_alignments(t)
        for t in targets:
            self.compiler(t)
        for t in [*targets, *([host] if host else [])]:
            self.llvm_names(t, host.canonical if host is not None and t is not host else None)
        self.hosts(targets, host)
        self.devices(targets)
        self.one_plain_target(targets)
        self.components(targets)
        if not self.broken:
            self.release()
        return self.findings


def _device(device: int) -> str:
    return registry.DEVICE_NAMES.get(device, str(device))


def _show(pointer: str) -> str:
    return display_path(pointer)


def semantic_findings(
    data: Mapping[str, Any],
    structural: list[Finding],
    *,
    strict: bool = False,
    partial: bool = False,
    string_start: StringStart | None = None,
    reader: tg.TargetReader | None = None,
) -> list[Finding]:
    """Every semantic finding of a resolved tree. `structural` are its structural findings (their
    subtrees are skipped); `partial` says the tree lacks what unresolvable parents would add;
    `string_start(pointer)` may give where a string value's text begins, so that errors inside
    legacy target strings get their exact column."""
    return _Rules(data, structural, strict, partial, string_start, reader).run()


def config_findings(
    data: Mapping[str, Any],
    *,
    strict: bool = False,
    reader: tg.TargetReader | None = None,
    string_start: StringStart | None = None,
) -> list[Finding]:
    """Every finding of the one rule engine on a config used on its own (resolved, or written by
    `config migrate`): structural, completeness, then semantic. What every command refuses.
    `string_start` as for `semantic_findings`."""
    structural = [*check_document(data), *completeness_findings(data)]
    found = semantic_findings(data, structural, strict=strict, reader=reader, string_start=string_start)
    return [*structural, *found]
