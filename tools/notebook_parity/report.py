"""Summarise worker results into per-notebook counts and failures grouped by cause.

Counting rule: the denominator is the code cells that raise nothing under TensorFlow; a minitf
cell passes when it is one of those and raises nothing under minitf either. Printed output is
compared loosely and reported apart (it does not decide passing): numbers are masked, whitespace
collapsed and dropped next to brackets and commas (numpy pads columns to the widest number), so
`tf.Tensor(1.5, shape=(), dtype=float32)` vs `tf.Tensor(2.0, shape=(), ...)` matches but a
different repr or dtype does not.
"""
import datetime
import json
import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]

# The areas other engineers are adding to minitf right now; failures in them are expected to move.
AREAS = {
    "ragged": re.compile(r"ragged|RaggedTensor", re.I),
    "sparse": re.compile(r"\bsparse|SparseTensor", re.I),
    "forwardprop": re.compile(r"ForwardAccumulator|forwardprop|\bjvp\b", re.I),
    "random.Generator": re.compile(r"random\.Generator|\bGenerator\b|get_global_generator|"
                                   r"create_rng_state|stateless|random\.experimental", re.I),
    "tfrecord/Example": re.compile(r"TFRecord|tf\.train\.(Example|Feature|Features|BytesList|FloatList|Int64List)"
                                   r"|parse_single_example|parse_example|serialize_tensor|parse_tensor|"
                                   r"FixedLenFeature|VarLenFeature|io\.FixedLen|io\.VarLen", re.I),
}


def versions():
    """The library versions and minitf commit this measurement describes."""
    out = {"date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}
    try:
        out["minitf_commit"] = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                                              capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "minitf"],
                               capture_output=True, text=True).stdout.strip()
        out["minitf_dirty"] = bool(dirty)
    except OSError:
        out["minitf_commit"] = "unknown"
    try:
        import tensorflow as tf  # lazy: only for the version string in the report

        out["tensorflow_version"] = tf.__version__
    except ImportError:
        out["tensorflow_version"] = None
    return out


def normalize_output(text):
    """Printed output with numbers masked and whitespace collapsed, for the loose comparison."""
    text = re.sub(r"0x[0-9a-f]+", "0x#", text)
    text = re.sub(r"(?<![\w.])[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", "#", text)
    text = re.sub(r"\s*([\[\](),])\s*", r"\1", text)  # numpy pads columns to the widest number
    return re.sub(r"\s+", " ", text).strip()


def cause_key(err):
    """The grouping key of a failure: exception type and its first line with numbers masked."""
    msg = re.sub(r"\d+", "N", err.get("message") or "")
    return f"{err['type']}: {msg[:140]}"


def area_of(err, line, context=()):
    """Which in-progress area (AREAS) a failure belongs to, judged from its message and notebook lines.

    The notebook lines are the failing line of the cell and, when the error passed through a
    function an earlier cell defined, that function's lines on the way (`notebook_frames`).
    `context` (code of the cells that bind the names the failing cell uses) is read only when
    the traceback shows no line of the notebook, as when a dataset map runs the function.
    """
    texts = [err.get("message") or "", line or ""] + list(err.get("notebook_frames") or [])
    if not line and not err.get("notebook_frames"):
        texts += list(context)
    for name, pat in AREAS.items():
        if any(pat.search(t) for t in texts):
            return name
    return None


def _load(path):
    if not path.exists():
        return None
    return {r["index"]: r for r in (json.loads(x) for x in path.read_text().splitlines() if x.strip())}


_DEFINES = re.compile(r"^\s*(?:def|class)\s+(\w+)|^\s*([\w, ()]+?)\s*=[^=]", re.M)


def _defined_names(code):
    """Names a cell binds at top level or in its first statement targets (def, class, assignment)."""
    names = set()
    for fn, targets in _DEFINES.findall(code or ""):
        if fn:
            names.add(fn)
        else:
            names.update(re.findall(r"\w+", targets))
    return names


def build(results_dir, nb_ids, meta):
    """The report dict: summary, per-notebook rows, failures with cause/area/cascade, groups."""
    results_dir = pathlib.Path(results_dir)
    rows, failures = [], []
    for nb_id in nb_ids:
        stem = nb_id.replace("/", "__")
        tf_res = _load(results_dir / f"{stem}.tensorflow.jsonl")
        mt_res = _load(results_dir / f"{stem}.minitf.jsonl")
        cells = json.loads((results_dir / f"{stem}.minitf.cells.json").read_text()) \
            if (results_dir / f"{stem}.minitf.cells.json").exists() else []
        n_cells = len(cells) or (len(tf_res) if tf_res else 0)
        code = {c["index"]: c.get("code", "") for c in cells}
        if tf_res is None or mt_res is None:
            rows.append({"notebook": nb_id, "missing": True})
            continue
        tf_ok = sorted(i for i, r in tf_res.items() if r["status"] == "ok")
        mt_ok = [i for i in tf_ok if mt_res.get(i, {}).get("status") == "ok"]
        same_out = sum(normalize_output(tf_res[i].get("stdout", "")) == normalize_output(mt_res[i].get("stdout", ""))
                       for i in mt_ok)
        failed_names = set()
        nb_fail = []
        for i in tf_ok:
            r = mt_res.get(i)
            if r is None:
                err = {"type": "NotRun", "message": "the minitf run ended before this cell (killed or crashed)",
                       "cell_line": None, "where": None}
            elif r["status"] == "ok":
                continue
            else:
                err = r["error"]
            lines = (code.get(i) or "").split("\n")
            at = err.get("cell_line")
            line = lines[at - 1].strip() if at and at <= len(lines) else ""
            # A cascade: a NameError for, or a failing line that uses, a name an earlier failing
            # cell binds (e.g. plotting the empty loss list of a training loop that failed).
            m = re.match(r"name '(\w+)' is not defined", err.get("message") or "")
            used = set(re.findall(r"[A-Za-z_]\w*", line)) - {"tf", "np", "plt", "print", "range", "len"}
            cascade = (bool(m and m.group(1) in failed_names) or err["type"] == "NotRun"
                       or (err["type"] != "AttributeError" and bool(used & failed_names)))
            failed_names |= _defined_names(code.get(i))
            used_here = set(re.findall(r"[A-Za-z_]\w*", code.get(i) or ""))
            context = [code[j] for j in code if j < i and _defined_names(code[j]) & used_here]
            nb_fail.append({"notebook": nb_id, "cell": i, "type": err["type"], "message": err.get("message"),
                            "line": line[:200], "where": err.get("where"),
                            "notebook_frames": err.get("notebook_frames", []), "cause": cause_key(err),
                            "area": area_of(err, line, context), "cascade": cascade})
        failures += nb_fail
        rows.append({"notebook": nb_id, "cells": n_cells, "tf_not_reached": n_cells - len(tf_res),
                     "skipped": sum(r["status"] == "skipped" for r in tf_res.values()),
                     "tf_pass": len(tf_ok), "minitf_pass": len(mt_ok), "same_output": same_out,
                     "whole": len(mt_ok) == len(tf_ok) and bool(tf_ok),
                     "tf_failing": [{"cell": i, "type": r["error"]["type"], "message": r["error"]["message"]}
                                    for i, r in sorted(tf_res.items()) if r["status"] in ("error", "timeout")],
                     "minitf_seconds": round(sum(r.get("seconds", 0) for r in mt_res.values()), 1),
                     "tf_seconds": round(sum(r.get("seconds", 0) for r in tf_res.values()), 1)})
    groups = {}
    for f in failures:
        if f["cascade"]:
            continue
        g = groups.setdefault((f["cause"], f["area"]),
                              {"cause": f["cause"], "area": f["area"], "count": 0, "cells": []})
        g["count"] += 1
        g["cells"].append(f"{f['notebook']}#{f['cell']}")
    done = [r for r in rows if not r.get("missing")]
    summary = {"notebooks": len(done), "notebooks_whole": sum(r["whole"] for r in done),
               "tf_pass": sum(r["tf_pass"] for r in done), "minitf_pass": sum(r["minitf_pass"] for r in done),
               "same_output": sum(r["same_output"] for r in done),
               "cells": sum(r["cells"] for r in done), "missing": [r["notebook"] for r in rows if r.get("missing")]}
    return {"meta": meta, "summary": summary, "notebooks": rows, "failures": failures,
            "groups": sorted(groups.values(), key=lambda g: (g["area"] is not None, -g["count"], g["cause"]))}


def markdown(data):
    """The report as markdown: summary, per-notebook table, causes outside and inside the active areas."""
    s, m = data["summary"], data["meta"]
    out = [f"# Notebook parity: {s['minitf_pass']} / {s['tf_pass']} cells",
           "",
           f"- date: {m.get('date_utc')}; minitf commit {m.get('minitf_commit')}"
           f"{' (+ uncommitted changes under minitf/)' if m.get('minitf_dirty') else ''}; "
           f"TensorFlow {m.get('tensorflow_version')}; tensorflow/docs {m.get('docs_commit', '')[:12]}",
           f"- {s['minitf_pass']} of the {s['tf_pass']} code cells that run under TF also run under minitf "
           f"({100 * s['minitf_pass'] / max(s['tf_pass'], 1):.1f}%); {s['notebooks_whole']} of {s['notebooks']} "
           f"notebooks pass whole; {s['cells']} code cells in all",
           f"- loose output match (numbers masked) on {s['same_output']} of the {s['minitf_pass']} passing cells",
           ]
    if s["missing"]:
        out.append(f"- not measured: {', '.join(s['missing'])}")
    if m.get("unmatched_rules"):
        out.append(f"- substitution rules that matched nothing (notebook drift?): {m['unmatched_rules']}")
    out += ["", "| notebook | code cells | pass TF | pass minitf | same output | whole |", "|---|---|---|---|---|---|"]
    for r in data["notebooks"]:
        if r.get("missing"):
            out.append(f"| {r['notebook']} | not measured | | | | |")
        else:
            note = f" ({r['tf_not_reached']} not reached under TF)" if r.get("tf_not_reached") else ""
            out.append(f"| {r['notebook']} | {r['cells']}{note} | {r['tf_pass']} | {r['minitf_pass']} | "
                       f"{r['same_output']} | {'yes' if r['whole'] else ''} |")
    for title, want in (("Failure causes outside the areas in progress", False),
                        ("Failure causes in the areas in progress (ragged, sparse, forwardprop, "
                         "random.Generator, TFRecord/Example)", True)):
        out += ["", f"## {title}", "", "| cells | cause | area | where (notebook#cell) |", "|---|---|---|---|"]
        for g in data["groups"]:
            if (g["area"] is not None) == want:
                cause = g["cause"].replace("|", "\\|")
                out.append(f"| {g['count']} | {cause} | {g['area'] or ''} | {', '.join(g['cells'][:6])}"
                           f"{' ...' if len(g['cells']) > 6 else ''} |")
    casc = [f for f in data["failures"] if f["cascade"]]
    out += ["", f"## Cascades: {len(casc)} cells", "",
            "Not counted in the groups above: a NameError for a name an earlier failing cell binds, a failing",
            "line (other than an AttributeError) that uses such a name, or a cell the minitf run never reached.", "",
            "| notebook#cell | error | line |", "|---|---|---|"]
    for f in casc:
        msg = f"{f['type']}: {(f['message'] or '')[:90]}".replace("|", "\\|")
        code = f"`{f['line'][:70]}`" if f["line"] else ""
        out.append(f"| {f['notebook']}#{f['cell']} | {msg} | {code} |")
    out.append("")
    return "\n".join(out) + "\n"
