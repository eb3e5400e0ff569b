"""The legacy build plan: a config as old tvmc / Relay (TVM 0.18 or 0.19) would build it. No TVM here.

Shared by `--emit tvmc` and `--emit relay`, for one release (`validate.legacy.choose`: the
config's `tvm-version` or `--tvm-version`). Targets become legacy strings holding only what that
release has (`validate.legacy.narrow`); BYOC entries — legacy kinds such as `ethos-u`, or a
`compiler` key — become that release's old tvmc codegens, applied in target order; the host
becomes the second TVM target, as old tvmc read it. What the release cannot do is refused with
the first of `validate.legacy.problems` (the rules `config validate` reports for a config written
for that release), naming the key, where it was set, and the release.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tvmc import registry
from tvmc.backend.model import ModelSpec, check_legacy
from tvmc.config import CompilationConfig
from tvmc.errors import BuildError, TvmcError, UsageError
from tvmc.frozen import thaw
from tvmc.pointers import join
from tvmc.provenance import Origin, origin_of
from tvmc.records import record
from tvmc.validate import legacy as gens
from tvmc.validate.legacy import MODERN_HINT

RELAY_HINT = "use --emit relay, which can express it"


class Inexpressible(BuildError):
    """What one legacy output format cannot say though the release can (old tvmc's command line, or
    the Relay script): the hint names the format that can. Anything the release itself lacks is a
    rule of `validate.legacy` instead, which `config validate` reports."""

    default_rule = "inexpressible"


@record(frozen=True)
class Byoc:
    """One of old tvmc's BYOC codegens (composite_target.py `REGISTERED_CODEGEN` of the release)."""

    name: str
    partition: str  # the Relay partition function, called (mod, params, mod_name=..., **options)
    config_key: str | None  # its PassContext options key, which also receives the options
    options: dict[str, Any]  # codegen options (legacy strings' attributes, without common ones)
    legacy: str  # the entry as old tvmc's --target wrote it: "ethos-u -accelerator_config=..."
    pointer: str


@record(frozen=True)
class LegacyPlan:
    version: str  # the old TVM release written for ("0.18", "0.19")
    model: ModelSpec
    byoc: tuple[Byoc, ...]
    target: str  # legacy string of the TVM target (without host)
    host: str | None  # legacy string of the host; None for a CPU target that is its own host
    executor: dict[str, Any] | None  # canonical table (None: graph)
    runtime: dict[str, Any] | None  # canonical table (None: cpp)
    pass_config: dict[str, Any]  # legacy names
    disabled_pass: tuple[str, ...]
    opt_level: int
    build: dict[str, Any]
    notes: tuple[str, ...]

    def non_default_options(self, section: str) -> dict[str, Any]:
        """The executor/runtime options that differ from the registry default (old tvmc's flags)."""
        table = self.executor if section == "executor" else self.runtime
        if table is None:
            return {}
        known = registry.components(section)[table["kind"]]
        return {k: v for k, v in table.items() if k != "kind" and v != known.options[k].default}


class LegacyPlanner:
    def __init__(self, config: CompilationConfig, origins: Mapping[str, Origin], version: str | None = None):
        self.config = config
        # The config as plain data, as the release rules (validate.legacy) read it.
        self.view = gens.View(
            targets=tuple(thaw(config.targets)),
            host=thaw(config.host),
            executor=thaw(config.executor),
            runtime=thaw(config.runtime),
            pass_config=thaw(config.pass_config),
            disabled_pass=tuple(config.disabled_pass),
            build=thaw(config.build),
        )
        self.origins = origins
        self.notes: list[str] = []
        self.requested = version
        self.gen = registry.generation(gens.LAST_TVMC)

    def refuse(
        self, pointer: str, message: str, hint: str | None = MODERN_HINT, *, rule: str = gens.RULE
    ) -> BuildError:
        """A refusal with the id of the rule that refuses the same (the release rules: `legacy-release`)."""
        origin = origin_of(self.origins, pointer)
        return BuildError(message, origin.location() if origin else None, hint=hint, pointer=pointer, rule=rule)

    def plan(self, model: ModelSpec) -> LegacyPlan:
        check_legacy(model)
        try:
            self.gen = gens.choose(self.config.tvm_version, self.requested)
        except UsageError:
            raise
        except TvmcError as err:
            hint = None if self.requested else MODERN_HINT
            raise self.refuse("/tvm-version", err.message, hint, rule="unsupported-tvm-version") from None
        # The target system as the release takes it, narrowed and written once: the rules check
        # these strings and the plan carries them.
        written = gens.legacy_targets(self.view, self.gen)
        problem = next(gens.problems(self.view, self.gen, written), None)
        if problem is not None:
            raise self.refuse(problem.pointer, problem.message, problem.hint)
        byoc, target, host = self.targets(written)
        return LegacyPlan(
            version=self.gen.version,
            model=model,
            byoc=byoc,
            target=target,
            host=host,
            executor=self.component("executor"),
            runtime=self.component("runtime"),
            pass_config=self.pass_config(),
            disabled_pass=self.config.disabled_pass,
            opt_level=self.config.opt_level,
            build=self.build(),
            notes=tuple(self.notes),
        )

    def targets(self, written: gens.LegacyTargets) -> tuple[tuple[Byoc, ...], str, str | None]:
        byoc: list[Byoc] = []
        for index, entry in enumerate(self.view.targets):
            pointer = f"/targets/{index}"
            if gens.is_codegen(entry):
                byoc.append(self.codegen(str(entry["kind"]), entry, pointer))
            elif "compiler" in entry:
                byoc.append(self.codegen(str(entry["compiler"]), {}, join(pointer, "compiler")))
        assert written.target is not None  # gens.problems: "only BYOC targets", or it cannot be expressed
        return tuple(byoc), written.target, written.host

    def codegen(self, name: str, entry: Mapping[str, Any], pointer: str) -> Byoc:
        options = gens.codegen_options(entry)
        legacy = " ".join([name, *(f"-{k}={_legacy_value(v)}" for k, v in options.items())])
        partition, config_key = self.gen.pipelines[name]
        return Byoc(name, partition, config_key, options, legacy, pointer)

    def component(self, section: str) -> dict[str, Any] | None:
        table = self.view.executor if section == "executor" else self.view.runtime
        return None if table is None else dict(table)

    def pass_config(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, value in self.view.pass_config.items():
            legacy = gens.legacy_pass_config(name)
            if legacy != name:
                self.notes.append(f"pass-config {name!r} is {legacy!r} in TVM {self.gen.version}")
            out[legacy] = value
        return out

    def build(self) -> dict[str, Any]:
        build = dict(self.view.build)
        for key in ("desired-layout-ops", "mixed-precision-ops"):
            if key in build:
                build[key] = [op.removeprefix("relax.") for op in build[key]]
        return build


def _legacy_value(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, list):
        return ",".join(_legacy_value(v) for v in value)
    return str(value)


def plan_legacy(
    config: CompilationConfig, origins: Mapping[str, Origin], model: ModelSpec, version: str | None = None
) -> LegacyPlan:
    """The plan for one old release: `version` (`--tvm-version`), else the config's `tvm-version`."""
    return LegacyPlanner(config, origins, version).plan(model)
