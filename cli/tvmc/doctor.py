"""`tvmc doctor`: what this installation can do, and the one command that fixes what it cannot.

The facts come from a child process (`tvmc.backend.probe`): it imports each optional package for real
and asks TVM for its version, its LLVM and this CPU, so a broken or crashing install is reported,
not inherited. The rest is cheap and local: the known-bad version combinations (`tvmc.deps`), the
cross compilers the shipped configs name (the caller resolves them: `tvmc.api.doctor`), and where
tvmc keeps its cache, user configs and tuning database.

Exit status (`Report.failed`): with FEATURE arguments, 1 when one of them cannot run here; without,
1 only when something installed is broken (a known-bad version combination, a package or TVM that
is present but fails to import or crashes): a missing optional package is reported, not a failure.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tvmc import __version__, deps, sources
from tvmc.backend import preflight
from tvmc.errors import UsageError, did_you_mean
from tvmc.records import field, record

PROBE = "tvmc.backend.probe"
PROBE_TIMEOUT = 300.0  # seconds: importing torch and TVM on a slow disk


@record(frozen=True)
class PackageState:
    package: deps.Package
    state: str  # ok | missing | broken | unsupported (installed, but a version tvmc cannot use) | unknown
    version: str | None = None
    error: str | None = None
    compiled: bool | None = None  # tomli only

    @property
    def ok(self) -> bool:
        return self.state == "ok"


@record(frozen=True)
class FeatureState:
    feature: deps.Feature
    problems: tuple[str, ...]  # empty: it can run here
    fix: str | None

    @property
    def ok(self) -> bool:
        return not self.problems


@record(frozen=True)
class CrossCompiler:
    command: str
    path: str | None  # where it was found on PATH
    configs: tuple[str, ...]  # the shipped configs that name it
    debian_package: str | None
    install: str


@record
class Report:
    requested: tuple[str, ...]
    python: str
    executable: str
    packages: dict[str, PackageState]
    features: list[FeatureState]
    known_bad: list[deps.KnownBad]
    cross_compilers: list[CrossCompiler]
    paths: dict[str, str]
    tvm: str | None = None
    llvm: str | None = None
    cpu: dict[str, Any] | None = None
    tvm_error: str | None = None  # TVM is installed but could not be asked (a failed import, a crash)
    notes: list[str] = field(default_factory=list)

    def failed(self) -> list[str]:
        """Why the exit status is 1 (see the module's docstring); empty: 0. With FEATUREs: those that
        cannot run here (a cross compiler: not on PATH); without: what installed is broken."""
        if self.requested:
            features = [f.feature.name for f in self.features if f.feature.name in self.requested and not f.ok]
            compilers = [c.command for c in self.cross_compilers if c.command in self.requested and c.path is None]
            return [*features, *compilers]
        broken = [f"{p.package.distribution} is broken" for p in self.packages.values() if p.state == "broken"]
        return [*(bad.message for bad in self.known_bad), *broken, *([self.tvm_error] if self.tvm_error else [])]

    def verdict(self) -> str | None:
        """The one line on stderr when the exit status is 1."""
        failed = self.failed()
        if not failed:
            return None
        if self.requested:
            return f"cannot run here: {', '.join(failed)} (the fix is above)"
        return f"broken: {'; '.join(failed)}"

    def to_json(self) -> dict[str, Any]:
        """The report for CI: stable keys, every version and path as a string or null."""
        return {
            "tvmc": __version__,
            "python": {"version": self.python, "executable": self.executable},
            "tvm": {
                "version": self.tvm,
                "ffi": self.packages["tvm_ffi"].version,
                "llvm": self.llvm,
                "error": self.tvm_error,
            },
            "cpu": self.cpu,
            "packages": {
                p.package.distribution: {
                    "module": p.package.module,
                    "state": p.state,
                    "version": p.version,
                    "requirement": p.package.requirement,
                    "error": p.error,
                }
                for p in self.packages.values()
            },
            "features": {
                f.feature.name: {"ok": f.ok, "summary": f.feature.summary, "problems": list(f.problems), "fix": f.fix}
                for f in self.features
            },
            "known-bad": [{"message": b.message, "fix": b.fix, "features": list(b.features)} for b in self.known_bad],
            "cross-compilers": [
                {
                    "command": c.command,
                    "found": c.path,
                    "configs": list(c.configs),
                    "debian-package": c.debian_package,
                    "install": c.install,
                }
                for c in self.cross_compilers
            ],
            "paths": dict(self.paths),
            "requested": list(self.requested),
            "failed": self.failed(),
        }

    def text(self) -> str:
        ffi = self.packages["tvm_ffi"].version
        lines = [f"tvmc {__version__}", f"Python {self.python} ({self.executable})"]
        if self.tvm is None and self.packages["tvm"].state != "ok":
            lines.append(f"TVM not usable: {_state_text(self.packages['tvm'])}")
        else:
            lines.append(f"TVM {self.tvm or '?'}, tvm-ffi {ffi or '?'}, LLVM {self.llvm or '?'}")
        if self.tvm_error:
            lines.append(f"TVM error: {self.tvm_error}")
        if self.cpu is not None:
            features = " ".join(self.cpu["features"]) or "none"
            lines.append(f"CPU {self.cpu['name']} ({self.cpu['triple']}), features: {features}")
        lines += ["", "features:"]
        width = max(len(f.feature.name) for f in self.features)
        for feature in self.features:
            if feature.ok:
                lines.append(f"  ok       {feature.feature.name:<{width}}  {feature.feature.summary}")
            else:
                why = "; ".join(feature.problems)
                fix = f"; fix: {feature.fix}" if feature.fix else ""
                lines.append(f"  cannot   {feature.feature.name:<{width}}  {why}{fix}")
        if self.known_bad:
            lines += ["", "known-bad versions:"]
            lines += [f"  {bad.message}; fix: {bad.fix}" for bad in self.known_bad]
        if self.cross_compilers:
            lines += ["", "cross compilers (build.cross-compiler of the shipped configs):"]
            width = max(len(c.command) for c in self.cross_compilers)
            for cc in self.cross_compilers:
                where = cc.path if cc.path else f"not on PATH; {cc.install}"
                lines.append(f"  {'found' if cc.path else 'missing':<8} {cc.command:<{width}}  {where}")
                lines.append(f"  {'':<8} {'':<{width}}  used by {', '.join(cc.configs)}")
        lines += ["", "paths:"]
        width = max(len(k) for k in self.paths)
        lines += [f"  {key:<{width}}  {value}" for key, value in self.paths.items()]
        lines += [f"note: {note}" for note in self.notes]
        return "\n".join(lines) + "\n"


def _state_text(state: PackageState) -> str:
    name = state.package.distribution
    if state.state == "missing":
        return f"{name} is not installed"
    if state.state == "unsupported":
        return f"{name} {state.version} is installed; tvmc needs {state.package.requirement}"
    if state.state == "broken":
        return f"{name} {state.version or ''} is installed but does not import ({state.error})".replace("  ", " ")
    return f"{name} could not be checked ({state.error})"


def check_names(requested: Sequence[str], compilers: Sequence[str] = ()) -> tuple[str, ...]:
    """The FEATURE arguments, checked: a feature or a cross compiler the shipped configs name; an
    unknown one is a usage error with a did-you-mean."""
    known = [*deps.FEATURES, *compilers]
    for name in requested:
        if name not in known:
            raise UsageError(
                f"unknown feature {name!r} (features: {', '.join(deps.FEATURES)}; or a cross compiler the "
                "shipped configs name, such as aarch64-linux-gnu-gcc)",
                "FEATURE",
                suggestions=did_you_mean(name, known),
            )
    return tuple(dict.fromkeys(requested))


def run_probe(
    env: Mapping[str, str] | None = None, timeout: float = PROBE_TIMEOUT
) -> tuple[list[dict[str, Any]], str | None]:
    """The probe's records, and why it ended early (a crash, a timeout), if it did."""
    from tvmc.backend.isolated import _env

    try:
        proc = subprocess.run(
            [sys.executable, "-m", PROBE],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            env=dict(env) if env is not None else _env(),
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as err:
        stdout = err.stdout or b""
        records = _records(stdout if isinstance(stdout, bytes) else stdout.encode())
        return records, f"asking TVM did not end within {timeout:.0f} s"
    records = _records(proc.stdout)
    if any("done" in r for r in records):
        return records, None
    if proc.returncode < 0:
        return records, f"crashed ({signal.Signals(-proc.returncode).name})"
    lines = [x for x in proc.stderr.decode("utf-8", "replace").splitlines() if x.strip()]
    return records, f"failed: {lines[-1].strip() if lines else f'exit status {proc.returncode}'}"


def _records(stdout: bytes) -> list[dict[str, Any]]:
    out = []
    for line in stdout.decode("utf-8", "replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            out.append(record)
    return out


def _package_states(records: Sequence[Mapping[str, Any]]) -> dict[str, PackageState]:
    by_module = {str(r["package"]): r for r in records if "package" in r}
    states = {}
    for module, package in deps.PACKAGES.items():
        record = by_module.get(module)
        if record is None:  # the probe ended before this one
            states[module] = PackageState(package, "unknown", deps.installed_version(package.distribution))
            continue
        state, version = str(record.get("state")), record.get("version")
        compiled = record.get("compiled")
        if state == "ok" and version and not _usable(package, version):
            state = "unsupported"
        states[module] = PackageState(package, state, version, record.get("error"), compiled)
    return states


def _usable(package: deps.Package, version: str) -> bool:
    if package.module == "tvm":  # tvmc builds with any TVM >= 0.25 (the extra pins the tested one)
        return deps.release(version)[:2] >= (0, 25)
    return _satisfies(version, package.requirement)


def _satisfies(version: str, requirement: str) -> bool:
    """Whether a version meets the upper bounds of a requirement (`<2.4`, `==0.27.0.post1`), by
    release numbers; lower bounds are not checked (an older release that imports is usable)."""
    release = deps.release(version)
    name = re.match(r"[A-Za-z0-9_.-]+", requirement)
    for clause in requirement[name.end() if name else 0 :].split(","):
        clause = clause.strip()
        if clause.startswith("<") and not clause.startswith("<=") and release >= deps.release(clause[1:]):
            return False
        if clause.startswith("==") and release != deps.release(clause[2:]):
            return False
    return True


def _feature_states(packages: Mapping[str, PackageState], known_bad: Sequence[deps.KnownBad]) -> list[FeatureState]:
    out = []
    for feature in deps.FEATURES.values():
        problems: list[str] = []
        to_install: list[deps.Package] = []
        to_reinstall: list[deps.Package] = []
        for module in feature.modules:
            state = packages[module]
            if state.ok or (module == "tvm_ffi" and state.state == "unsupported" and known_bad):
                continue  # a bad tvm-ffi is said once, as the known-bad combination
            problems.append(_state_text(state))
            (to_reinstall if state.state == "broken" else to_install).append(state.package)
        fixes = []
        if to_install:
            fixes.append(deps.install_command(to_install))
        if to_reinstall:
            fixes.append(deps.install_command(to_reinstall, reinstall=True))
        for bad in known_bad:
            if feature.name in bad.features:
                problems.append(bad.message)
                fixes.append(bad.fix)
        if feature.name == "fast-toml" and packages["tomli"].ok and packages["tomli"].compiled is False:
            problems.append("tomli is installed as pure Python: no faster than tomllib")
            fixes.append(deps.install_command([deps.PACKAGES["tomli"]], reinstall=True))
        out.append(FeatureState(feature, tuple(problems), " && ".join(fixes) if fixes else None))
    return out


def cross_compilers(named: Mapping[str, Sequence[str]], path: str | None = None) -> list[CrossCompiler]:
    """Each cross compiler (→ the configs naming it): found on PATH (`path` stands in for $PATH)?"""
    out = []
    for command in sorted(named):
        found = shutil.which(command, path=path)
        out.append(
            CrossCompiler(
                command,
                found,
                tuple(sorted(named[command])),
                preflight.debian_package(command),
                preflight.how_to_install(command),
            )
        )
    return out


def paths(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """Where tvmc keeps things, from the functions that decide it."""
    from tvmc.sources import native, search
    from tvmc.tune import store

    env = os.environ if env is None else env
    native_file = native.cache_path(env, ask=False)  # never imports TVM here: the probe child does
    user = search.user_config_dir(env)
    shipped = sources.shipped_config_dir()

    def shown(path: Path, present: str = "") -> str:
        return f"{path}{present}" if path.exists() else f"{path} (not created yet)"

    return {
        "cache": shown(native.cache_dir(env)),
        "host/native": shown(native_file),
        "user configs": shown(user),
        "shipped configs": str(shipped) if shipped is not None else "(not found)",
        "tuning database": shown(store.default_root(env)),
    }


def diagnose(
    requested: Sequence[str] = (),
    named_compilers: Mapping[str, Sequence[str]] | None = None,
    *,
    probe: tuple[list[dict[str, Any]], str | None] | None = None,
) -> Report:
    """The whole report. `probe` stands in for the child's answer (tests)."""
    wanted = check_names(requested, list(named_compilers or {}))
    records, ended = probe if probe is not None else run_probe()
    packages = _package_states(records)
    versions = {p.package.distribution: p.version for p in packages.values()}
    bad = deps.known_bad(versions)
    facts: dict[str, Any] = next((r["facts"] for r in records if "facts" in r), {})
    tvm_error = None
    if ended is not None and packages["tvm"].state in ("ok", "unknown") and not facts:
        tvm_error = f"importing TVM {ended}"
        # what was not checked cannot be trusted to run; what has no metadata is not installed
        packages = {
            m: (
                PackageState(s.package, "broken" if s.version else "missing", s.version, tvm_error)
                if m in ("tvm", "tvm_ffi") and s.state in ("ok", "unknown")
                else s
            )
            for m, s in packages.items()
        }
    elif any("facts-error" in r for r in records):
        tvm_error = "asking TVM for its LLVM failed: " + str(
            next(r["facts-error"] for r in records if "facts-error" in r)
        )
    report = Report(
        requested=wanted,
        python=platform.python_version(),
        executable=sys.executable,
        packages=packages,
        features=_feature_states(packages, bad),
        known_bad=bad,
        cross_compilers=cross_compilers(named_compilers or {}),
        paths=paths(),
        tvm=facts.get("tvm") or packages["tvm"].version,
        llvm=facts.get("llvm"),
        cpu=facts.get("cpu"),
        tvm_error=tvm_error,
    )
    return report
