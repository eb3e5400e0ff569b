#!/usr/bin/env python3
"""Benchmark `tvmc lsp` as an editor sees it: start-up, diagnostics after a change, completion.

    python scripts/bench_lsp.py [--repeat 5] [--starts 3]

A real LSP client (pygls's own) starts `python -m tvmc lsp` over stdio. Measured, medians printed:

- start-up: process spawn → the `initialize` response (--starts fresh processes);
- diagnostics: `didChange` of each shipped config (configs/, the edit a keystroke makes) → the
  `publishDiagnostics` for it, --repeat times each (goal <= 50 ms);
- completion: a `completion` request at a key position at the end of each shipped config, and at
  the first target's `kind` value and the key after it → the response (goal <= 30 ms).

The peer, measured in the same run: `tvmc config validate FILE` for the same files, one process
each — what an editor integration without a server pays per change. Ratios are server / peer.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted(p for p in (ROOT / "configs").rglob("*") if p.suffix in (".toml", ".json"))
DIAGNOSTICS_GOAL_MS = 50.0
COMPLETION_GOAL_MS = 30.0
TIMEOUT = 60.0


def _uri(path: Path) -> str:
    found = from_fs_path(str(path))
    assert found is not None
    return found


class Client:
    def __init__(self) -> None:
        self.client = LanguageClient("bench", "1")
        self.arrived: dict[str, asyncio.Event] = {}

        @self.client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: lsp.PublishDiagnosticsParams) -> None:
            event = self.arrived.get(params.uri)
            if event is not None:
                event.set()

    async def start(self) -> float:
        """Spawn and initialize; the seconds it took."""
        began = time.perf_counter()
        env = {**os.environ, "PYTHONPATH": str(ROOT / "cli")}
        await self.client.start_io(sys.executable, "-m", "tvmc", "lsp", cwd=str(ROOT), env=env)
        await asyncio.wait_for(
            self.client.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities())), TIMEOUT
        )
        took = time.perf_counter() - began
        self.client.initialized(lsp.InitializedParams())
        return took

    async def stop(self) -> None:
        await asyncio.wait_for(self.client.shutdown_async(None), TIMEOUT)
        self.client.exit(None)
        await asyncio.wait_for(self.client.stop(), TIMEOUT)

    async def open(self, path: Path, text: str) -> None:
        uri = _uri(path)
        self.arrived[uri] = asyncio.Event()
        self.client.text_document_did_open(
            lsp.DidOpenTextDocumentParams(
                text_document=lsp.TextDocumentItem(uri=uri, language_id=path.suffix[1:], version=1, text=text)
            )
        )
        await asyncio.wait_for(self.arrived[uri].wait(), TIMEOUT)

    async def change(self, path: Path, text: str, version: int) -> float:
        """didChange → publishDiagnostics for it, in seconds."""
        uri = _uri(path)
        self.arrived[uri] = asyncio.Event()
        began = time.perf_counter()
        self.client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        await asyncio.wait_for(self.arrived[uri].wait(), TIMEOUT)
        return time.perf_counter() - began

    async def complete(self, path: Path, line: int, character: int) -> tuple[float, int]:
        began = time.perf_counter()
        found = await asyncio.wait_for(
            self.client.text_document_completion_async(
                lsp.CompletionParams(
                    text_document=lsp.TextDocumentIdentifier(uri=_uri(path)),
                    position=lsp.Position(line=line, character=character),
                )
            ),
            TIMEOUT,
        )
        items = found.items if isinstance(found, lsp.CompletionList) else found or []
        return time.perf_counter() - began, len(items)


def _completion_points(text: str) -> list[tuple[int, int]]:
    """A key position at the end of the file, and (when a target has a `kind` line) that kind's
    value and a key position after it."""
    lines = text.split("\n")
    points = [(len(lines) - 1, len(lines[-1]))]
    for number, line in enumerate(text.split("\n")):
        stripped = line.lstrip()
        if stripped.startswith(("kind =", '"kind":')) and '"' in line[line.index("kind") + 5 :]:
            value = line.index('"', line.index("kind") + 5) + 1
            points += [(number, value), (number + 1, 0)]
            break
    return points


def _peer(paths: list[Path], repeat: int) -> list[float]:
    """`tvmc config validate FILE`, one process per file and change."""
    times = []
    env = {**os.environ, "PYTHONPATH": str(ROOT / "cli")}
    for _ in range(repeat):
        for path in paths:
            began = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "tvmc", "config", "validate", "--format", "json", str(path)],
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=False,
            )
            times.append(time.perf_counter() - began)
    return times


async def _bench(repeat: int, starts: int) -> dict[str, list[float]]:
    results: dict[str, list[float]] = {"startup": [], "diagnostics": [], "completion": []}
    for _ in range(starts - 1):
        extra = Client()
        results["startup"].append(await extra.start())
        await extra.stop()
    client = Client()
    results["startup"].append(await client.start())
    texts = {path: path.read_text(encoding="utf-8") for path in SHIPPED}
    for path, text in texts.items():
        await client.open(path, text)
    counts = []
    for round_ in range(repeat):
        for path, text in texts.items():
            # A keystroke's worth of edit (a comment line for TOML, a space for JSON), then undone.
            edited = text + (f"# edit {round_}\n" if path.suffix == ".toml" else " ")
            results["diagnostics"].append(await client.change(path, edited, 2 * round_ + 2))
            results["diagnostics"].append(await client.change(path, text, 2 * round_ + 3))
            for line, character in _completion_points(text):
                took, count = await client.complete(path, line, character)
                results["completion"].append(took)
                counts.append(count)
    await client.stop()
    if not counts or min(counts) == 0:
        raise SystemExit("bench_lsp: a completion request returned nothing; the benchmark measures nothing")
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5, help="changes and completions per shipped config")
    parser.add_argument("--starts", type=int, default=3, help="server processes started for the start-up time")
    args = parser.parse_args()
    results = asyncio.run(_bench(args.repeat, args.starts))
    peer = _peer(SHIPPED, 1)

    def ms(values: list[float]) -> float:
        return statistics.median(values) * 1000

    def p90(values: list[float]) -> float:
        return sorted(values)[int(0.9 * (len(values) - 1))] * 1000

    print(
        f"shipped configs: {len(SHIPPED)}; changes: {len(results['diagnostics'])}; "
        f"completions: {len(results['completion'])}"
    )
    print(f"start-up (spawn → initialize)      median {ms(results['startup']):7.1f} ms")
    diag, comp, cli = ms(results["diagnostics"]), ms(results["completion"]), ms(peer)
    verdict = "ok" if diag <= DIAGNOSTICS_GOAL_MS else "OVER GOAL"
    print(
        f"diagnostics after a change          median {diag:7.1f} ms  p90 {p90(results['diagnostics']):7.1f} ms"
        f"  (goal <= {DIAGNOSTICS_GOAL_MS:.0f} ms: {verdict})"
    )
    verdict = "ok" if comp <= COMPLETION_GOAL_MS else "OVER GOAL"
    print(
        f"completion                          median {comp:7.1f} ms  p90 {p90(results['completion']):7.1f} ms"
        f"  (goal <= {COMPLETION_GOAL_MS:.0f} ms: {verdict})"
    )
    print(f"peer: tvmc config validate FILE    median {cli:7.1f} ms per change (a process each)")
    print(f"ratio diagnostics server / peer: {diag / cli:.3f} ({cli / diag:.1f}x faster)")


if __name__ == "__main__":
    main()
