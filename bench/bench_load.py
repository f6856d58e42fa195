"""Load and isolation in the browser (issue 19): one Streamlit server, N concurrent headless Chromium
sessions (one browser, a context — its own cookies, websocket and Streamlit session — per user).

Each session loads the layer builder, makes ``EDITS`` edits of the training's epochs (each a rerun of the
layer builder; a value no other session uses) and times Enter → its own new total on screen ("edit →
total"), then opens the hardware page from the sidebar and sets a chip count of its own, then goes back to
the layer builder. Isolation: after every step the session must see ITS values — the total for its epochs
(Epoch AI's worked example × epochs / 10) and, on the hardware page, its chips × 1 day × 312 TFLOP/s ×
the median reported utilization of A100-generation runs (A100 BF16 dense) — never another session's; and no
exception element anywhere.

Reports per N the median and p95 of edit → total, failures, and the server's resident memory (VmRSS from
/proc) before, after each N, and after ``RERUNS`` reruns of one session. ``--upload`` adds Epoch's
10^6-row CSV uploaded on the trends page: time to the result, and server RSS after it and after the
session is closed.

    /work/main/.venv/bin/python -m bench.bench_load [--sessions 5 10 20] [--edits 20] [--reruns 500] [--upload]
        [--ramp SECONDS]   (users' first page loads spread out; all edit at once afterwards)
        [--timeout SECONDS] (how long a user waits for one step; 180 by default)

Prints one JSON object. Figures are one run (not medians of runs): the machine's load matters; note it.
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import statistics
import time
from pathlib import Path

from bench.bench_epoch_upload_rss import big_csv
from tests.browser.harness import CHROMIUM_ARGS, SETTLED, cpu_seconds, rss_bytes, streamlit_server
from tests.browser import sessions as flows
from tests.browser.sessions import EDITS, EXCEPTION, TIMEOUT_MS, layer_total, settled, shows, user

SESSIONS = (5, 10, 20)
RERUNS = 500


def _processes() -> dict[int, tuple[int, str, float]]:
    """pid → (parent pid, name, CPU seconds so far) for every process (Linux /proc)."""
    tick, out = os.sysconf("SC_CLK_TCK"), {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                text = Path(entry.path, "stat").read_text()
            except OSError:
                continue
            name, rest = text[text.index("(") + 1:text.rindex(")")], text[text.rindex(")") + 2:].split()
            out[int(entry.name)] = (int(rest[1]), name, (int(rest[11]) + int(rest[12])) / tick)
    return out


def _machine_busy_s() -> tuple[float, float]:
    """(busy CPU seconds of the whole machine, all CPU seconds) so far (/proc/stat)."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    tick = os.sysconf("SC_CLK_TCK")
    return (sum(values) - values[3] - values[4]) / tick, sum(values) / tick


def _chromium_kind(pid: int) -> str:
    """chromium/renderer, chromium/gpu-process, chromium/utility, … (its --type), chromium/browser without."""
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").split()  # Chromium rewrites its title
    except OSError:
        return "chromium/ended"
    kind = next((a[7:].decode() for a in args if a.startswith(b"--type=")), "browser")
    return f"chromium/{kind}"


class CpuUse:
    """Who uses the CPU while users run: the server, this benchmark's Chromium (all its processes, renderers
    included, also those that end before the sample after them: each pid's last reading counts), the
    Playwright driver, and everyone else on the machine. Sampled every ``every_s``."""

    def __init__(self, server_pid: int, every_s: float = 0.5):
        self.server, self.every = server_pid, every_s
        self.seen: dict[int, tuple[str, float, float]] = {}  # pid → (group, first reading, last reading)
        self.running = False

    def _group(self, pid: int, table: dict) -> str | None:
        me, chain = os.getpid(), pid
        while chain in table and chain not in (0, 1):
            if chain == self.server:
                return "server"
            if table[chain][0] == me:  # a child of this benchmark: the Playwright driver, Chromium below it
                return _chromium_kind(pid) if "chrom" in table[pid][1] else "driver"
            chain = table[chain][0]
        return None

    def sample(self) -> None:
        table = _processes()
        for pid, (_, _, cpu) in table.items():
            group = self._group(pid, table)
            if group is not None:
                first = self.seen.get(pid, (group, 0.0, cpu))[1]  # a process started after start(): all of it
                self.seen[pid] = (group, first, cpu)

    async def run(self) -> None:
        self.running = True
        while self.running:
            self.sample()
            await asyncio.sleep(self.every)

    def start(self) -> None:
        self.seen.clear()
        self.sample()
        self.seen = {pid: (g, last, last) for pid, (g, _, last) in self.seen.items()}  # count from now
        self.busy = _machine_busy_s()
        self.task = asyncio.create_task(self.run())

    async def stop(self) -> dict:
        self.running = False
        await self.task
        self.sample()
        busy, total = _machine_busy_s()
        used = collections.Counter()
        for group, first, last in self.seen.values():
            used[group] += last - first
        wall_cores = total - self.busy[1]
        machine = busy - self.busy[0]
        chromium = {g.partition("/")[2]: round(v, 1) for g, v in used.items() if g.startswith("chromium/")}
        out = {"server_cpu_s": round(used["server"], 1), "driver_cpu_s": round(used["driver"], 1),
               "chromium_cpu_s": round(sum(chromium.values()), 1), "chromium_cpu_s_by_kind": chromium}
        out["chromium_processes"] = sum(g.startswith("chromium/") for g, _, _ in self.seen.values())
        out["machine_busy_cpu_s"] = round(machine, 1)
        out["others_cpu_s"] = round(machine - sum(used.values()), 1)
        out["machine_busy_share"] = round(machine / wall_cores, 2) if wall_cores else None
        return out


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


async def reruns(browser, url: str, n: int) -> float:
    """``n`` reruns of one session (epochs 11, 12, 11, … each waited for); seconds in all."""
    context = await browser.new_context(viewport={"width": 1440, "height": 900})
    page = await context.new_page()
    await page.goto(url)
    await settled(page)
    field = page.get_by_label("Epochs", exact=True)
    start = time.perf_counter()
    for i in range(n):
        epochs = 11 + i % 2
        await field.fill(str(epochs))
        await field.press("Enter")
        await shows(page, layer_total(epochs))
        await page.wait_for_function(SETTLED, arg=0, timeout=TIMEOUT_MS, polling=20)
    elapsed = time.perf_counter() - start
    await context.close()
    return elapsed


async def upload(browser, url: str, pid: int, path: Path) -> dict:
    context = await browser.new_context(viewport={"width": 1440, "height": 900})
    page = await context.new_page()
    await page.goto(f"{url}/trends")
    await settled(page)
    before = rss_bytes(pid)
    await page.get_by_text("Add Epoch AI's data").click()
    start = time.perf_counter()
    await page.locator("[data-testid='stFileUploaderDropzoneInput']").first.set_input_files(str(path))
    await page.wait_for_timeout(500)
    await settled(page)
    elapsed = time.perf_counter() - start
    out = {"upload_to_page_s": round(elapsed, 1), "rss_before_mb": round(before / 2**20),
           "rss_after_mb": round(rss_bytes(pid) / 2**20),
           "exceptions": await page.locator(EXCEPTION).count(),
           "messages": [t[:160] for t in await page.locator("[data-testid='stAlert']").all_inner_texts()][:3]}
    await context.close()
    await asyncio.sleep(5)
    out["rss_after_session_closed_mb"] = round(rss_bytes(pid) / 2**20)
    return out


async def measure(sessions: tuple[int, ...], edits: int, rerun_count: int, with_upload: bool,
                  ramp_s: float = 0.0) -> dict:
    from playwright.async_api import async_playwright

    result: dict = {"cpus": os.cpu_count(), "load_average_at_start": os.getloadavg()[0], "edits": edits,
                    "step_timeout_s": flows.TIMEOUT_MS / 1e3}
    with streamlit_server(with_process=True) as (url, proc):
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                              args=CHROMIUM_ARGS)
            warm = await browser.new_context()
            page = await warm.new_page()
            await page.goto(url)
            await settled(page)  # the server's first run: imports, caches (not counted)
            await warm.close()
            result["rss_before_mb"] = round(rss_bytes(proc.pid) / 2**20)
            for n in sessions:  # users 0…n-1: values unique among the sessions running at once
                start, cpu = time.perf_counter(), cpu_seconds(proc.pid)
                use = CpuUse(proc.pid)
                use.start()
                runs = await asyncio.gather(*(user(browser, url, k, edits, k * ramp_s) for k in range(n)))
                cpu_use = await use.stop()
                times = [t for r in runs for t in r["edit_s"]]
                loads = [r["load_s"] for r in runs if r.get("load_s") is not None]
                result[f"n{n}"] = {
                    "wall_s": round(time.perf_counter() - start, 1), "ramp_s_per_user": ramp_s,
                    "server_cpu_s": round(cpu_seconds(proc.pid) - cpu, 1),
                    "edit_to_total_ms_median": round(1e3 * statistics.median(times)) if times else None,
                    "edit_to_total_ms_p95": round(1e3 * percentile(times, 0.95)) if times else None,
                    "first_load_s_median": round(statistics.median(loads), 1) if loads else None,
                    "first_load_s_max": round(max(loads), 1) if loads else None, "first_loads_done": len(loads),
                    "cpu_use": cpu_use,
                    "edits_done": len(times), "sessions_with_problems": sum(bool(r["problems"]) for r in runs),
                    "problem_kinds": dict(collections.Counter(
                        p.split(":")[0].split(" ")[0] + " " + p.split(": ")[1][:40]
                        for r in runs for p in r["problems"])),
                    "problems": [p for r in runs for p in r["problems"]][:10],
                    "rss_after_mb": round(rss_bytes(proc.pid) / 2**20)}
                print(json.dumps({f"n{n}": result[f"n{n}"]}), flush=True)
            if rerun_count:
                elapsed = await reruns(browser, url, rerun_count)
                result["reruns"] = {"count": rerun_count, "wall_s": round(elapsed, 1),
                                    "ms_each": round(1e3 * elapsed / rerun_count),
                                    "rss_after_mb": round(rss_bytes(proc.pid) / 2**20)}
                await asyncio.sleep(5)
                result["reruns"]["rss_5s_later_mb"] = round(rss_bytes(proc.pid) / 2**20)
                print(json.dumps({"reruns": result["reruns"]}), flush=True)
            if with_upload:
                path = Path("/tmp") / f"flopscope-epoch-{os.getpid()}.csv"
                path.write_bytes(big_csv(1_000_000))
                try:
                    result["epoch_upload_1e6_rows"] = {"file_mb": round(path.stat().st_size / 2**20, 1),
                                                       **await upload(browser, url, proc.pid, path)}
                finally:
                    path.unlink()
            await browser.close()
    result["load_average_at_end"] = os.getloadavg()[0]
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, nargs="+", default=list(SESSIONS))
    parser.add_argument("--edits", type=int, default=EDITS)
    parser.add_argument("--reruns", type=int, default=RERUNS)
    parser.add_argument("--upload", action="store_true")
    parser.add_argument("--ramp", type=float, default=0.0,
                        help="seconds between users' first page loads (all are open together afterwards)")
    parser.add_argument("--timeout", type=float, default=flows.TIMEOUT_MS / 1e3,
                        help="seconds a user waits for one step (its page load, its total) before it is a failure")
    args = parser.parse_args()
    flows.TIMEOUT_MS = round(args.timeout * 1e3)
    print(json.dumps(asyncio.run(measure(tuple(args.sessions), args.edits, args.reruns, args.upload, args.ramp)),
                     indent=2))
