"""Measure how many cells of the pinned TF docs notebooks run unchanged under minitf.

    /work/tfvenv/bin/python tools/notebook_parity/run.py --docs PATH/TO/tensorflow-docs \
        [--out OUTDIR] [--notebooks guide/basics ...] [--libs tensorflow minitf] [--cell-timeout 120]

PATH is a tensorflow/docs work tree or git directory holding commit notebooks.DOCS_COMMIT.
minitf is measured at a committed revision (--minitf-rev, default HEAD): `git archive` exports its
minitf/ folder to a scratch directory put first on the worker's PYTHONPATH, so uncommitted edits
in the shared checkout neither help nor break the figure; --minitf-rev worktree measures the
installed working tree instead. For
each notebook and each library a fresh subprocess (worker.py) runs the prepared code cells in order
in one namespace, in its own scratch directory, one run at a time, threads capped at 1. The
results (OUTDIR/results/*.jsonl) are summarised by report.py into OUTDIR/report.json and
OUTDIR/report.md. A run whose results already exist is reused unless --force is given, so an
interrupted measurement picks up where it stopped.
"""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, str(HERE))

import notebooks  # noqa: E402
import report  # noqa: E402
import rewrite  # noqa: E402

LIBS = ("tensorflow", "minitf")
THREAD_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
              "TF_NUM_INTRAOP_THREADS": "1", "TF_NUM_INTEROP_THREADS": "1", "TF_CPP_MIN_LOG_LEVEL": "3",
              "MPLBACKEND": "Agg", "PYTHONHASHSEED": "0", "CUDA_VISIBLE_DEVICES": ""}


def prepare(cells, lib, nb_id, hits):
    """The worker's cell list for `lib`: {"index", "code"} or {"index", "skip"} per code cell."""
    out = []
    for i, src in enumerate(cells, 1):
        try:
            out.append({"index": i, "code": rewrite.prepare_cell(src, lib, nb_id, i, hits)})
        except rewrite.SkipCell as exc:
            out.append({"index": i, "skip": str(exc)})
    return out


def snapshot_minitf(rev, dest):
    """Export minitf/ at git revision `rev` into `dest`; returns the full commit id."""
    commit = subprocess.run(["git", "-C", str(report.ROOT), "rev-parse", rev], capture_output=True, text=True,
                            check=True).stdout.strip()
    archive = subprocess.run(["git", "-C", str(report.ROOT), "archive", commit, "minitf"], capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return commit


def run_one(nb_id, lib, cells, results_path, cell_timeout, run_timeout, pythonpath=None):
    """Run the prepared `cells` of `nb_id` under `lib` in a fresh subprocess; returns seconds taken."""
    results_path.unlink(missing_ok=True)
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="nbp_"))
    try:
        cells_path = scratch / "_cells.json"
        cells_path.write_text(json.dumps(cells))
        env = dict(os.environ, **THREAD_ENV, NBP_STANDIN_DIR=str(scratch / "_standins"), HOME=str(scratch))
        if pythonpath:
            env["PYTHONPATH"] = os.pathsep.join([pythonpath] + [p for p in [env.get("PYTHONPATH")] if p])
        t0 = time.time()
        log = open(scratch / "_stderr", "w+")
        proc = subprocess.Popen([sys.executable, str(HERE / "worker.py"), str(cells_path), lib, str(results_path),
                                 str(cell_timeout)], cwd=scratch, env=env, stdout=log, stderr=subprocess.STDOUT)
        # Watchdog: the worker's own per-cell alarm cannot interrupt a call stuck in C code, so a
        # cell that has not finished cell_timeout + 60 s after the previous one ends the run.
        done, last_change, tail = -1, time.time(), ""
        while proc.poll() is None:
            time.sleep(1)
            n = len(results_path.read_text().splitlines()) if results_path.exists() else 0
            if n != done:
                done, last_change = n, time.time()
            stalled = time.time() - last_change > cell_timeout + 60
            if stalled or time.time() - t0 > run_timeout:
                proc.kill()
                proc.wait()
                nxt = cells[n]["index"] if n < len(cells) else None
                tail = f"run killed: {'cell stalled' if stalled else f'run past {run_timeout}s'} at cell {nxt}\n"
                if nxt is not None:
                    with open(results_path, "a") as f:
                        f.write(json.dumps({"index": nxt, "status": "timeout", "seconds": cell_timeout + 60,
                                            "error": {"type": "CellTimeout", "message": tail.strip(),
                                                      "cell_line": None, "where": None}}) + "\n")
        if proc.returncode and not tail:
            log.seek(0)
            tail = log.read()[-2000:]
        log.close()
        if tail:
            (results_path.with_suffix(".stderr")).write_text(tail)
        return time.time() - t0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--docs", required=True, help="tensorflow/docs work tree or git directory")
    ap.add_argument("--commit", default=notebooks.DOCS_COMMIT, help="docs commit to read (git checkouts)")
    ap.add_argument("--out", default="notebook_parity_out", help="output directory")
    ap.add_argument("--notebooks", nargs="*", default=notebooks.NOTEBOOKS)
    ap.add_argument("--libs", nargs="*", default=list(LIBS), choices=LIBS)
    ap.add_argument("--cell-timeout", type=int, default=120, help="seconds per cell")
    ap.add_argument("--run-timeout", type=int, default=1500, help="seconds per notebook run")
    ap.add_argument("--force", action="store_true", help="rerun runs whose results exist")
    ap.add_argument("--minitf-rev", default="HEAD",
                    help="git revision of minitf to measure, or 'worktree' for the installed working tree")
    ap.add_argument("--report-only", action="store_true", help="only rebuild the report from existing results")
    args = ap.parse_args(argv)

    out = pathlib.Path(args.out)
    (out / "results").mkdir(parents=True, exist_ok=True)
    meta = {"docs_commit": args.commit, "cell_timeout": args.cell_timeout, "unmatched_rules": {}}
    meta.update(report.versions())
    snap = None
    if args.minitf_rev != "worktree" and not args.report_only:
        snap = tempfile.mkdtemp(prefix="nbp_minitf_")
        meta["minitf_commit"] = snapshot_minitf(args.minitf_rev, snap)[:12]
        meta["minitf_dirty"] = False
    if not args.report_only:
        (out / "meta.json").write_text(json.dumps(meta))
    elif (out / "meta.json").exists():
        meta = dict(json.loads((out / "meta.json").read_text()), unmatched_rules={})
    for nb_id in args.notebooks:
        cells = notebooks.code_cells(notebooks.read_notebook_text(args.docs, nb_id, args.commit))
        for lib in args.libs:
            hits = {}
            prepared = prepare(cells, lib, nb_id, hits)
            expected = {r.id for r in rewrite.substitutions.NOTEBOOK_RULES.get(nb_id, [])}
            if expected - set(hits):
                meta["unmatched_rules"][nb_id] = sorted(expected - set(hits))
            res = out / "results" / f"{nb_id.replace('/', '__')}.{lib}.jsonl"
            if args.report_only:
                continue
            res.with_suffix(".cells.json").write_text(json.dumps(prepared, indent=0))
            if res.exists() and not args.force:
                print(f"{nb_id} [{lib}]: reusing {res}", flush=True)
                continue
            secs = run_one(nb_id, lib, prepared, res, args.cell_timeout, args.run_timeout,
                           snap if lib == "minitf" else None)
            print(f"{nb_id} [{lib}]: {len(cells)} cells in {secs:.0f}s", flush=True)
    if snap:
        shutil.rmtree(snap, ignore_errors=True)
    data = report.build(out / "results", args.notebooks, meta)
    (out / "report.json").write_text(json.dumps(data, indent=1))
    (out / "report.md").write_text(report.markdown(data))
    s = data["summary"]
    print(f"minitf passes {s['minitf_pass']} of {s['tf_pass']} cells that pass under TF; "
          f"{s['notebooks_whole']} of {s['notebooks']} notebooks whole")


if __name__ == "__main__":
    main()
