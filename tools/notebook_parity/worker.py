"""Runs one notebook under one library in this process; started by run.py in a fresh subprocess.

    python worker.py CELLS_JSON LIB RESULTS_JSONL CELL_TIMEOUT_S

CELLS_JSON holds the prepared cells ([{"index", "code"} or {"index", "skip"}]). Cells run in
order in one namespace, like a kernel: the last expression of a cell is repr()'d as a notebook
would display it. One JSON line per cell goes to RESULTS_JSONL as soon as the cell ends, so a
run killed from outside still leaves its earlier results.
"""
import ast
import contextlib
import io
import json
import linecache
import os
import signal
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))


class CellTimeout(BaseException):
    """The cell ran past the per-cell limit (a BaseException so notebook `except Exception` keeps out)."""


def _on_alarm(signum, frame):
    raise CellTimeout("cell ran past the per-cell time limit")


class _Tee(io.TextIOBase):
    """Collects what a cell prints (capped) without echoing it."""

    def __init__(self, cap=4000):
        self.parts, self.size, self.cap = [], 0, cap

    def write(self, s):
        if self.size < self.cap:
            self.parts.append(s[: self.cap - self.size])
            self.size += len(s)
        return len(s)

    def getvalue(self):
        return "".join(self.parts)


def _setup(lib):
    os.environ.setdefault("MPLBACKEND", "Agg")
    try:
        import IPython  # noqa: F401
    except ImportError:
        sys.path.insert(0, os.path.join(HERE, "stubs"))
    sys.path.insert(0, HERE)
    import standins

    standins.LIB = lib
    if lib == "tensorflow":
        import tensorflow as tf

        tf.config.threading.set_intra_op_parallelism_threads(1)
        tf.config.threading.set_inter_op_parallelism_threads(1)
    import matplotlib

    matplotlib.use("Agg")
    return {"__name__": "__main__", "__builtins__": __builtins__, "_nbp": standins}


def _run(code, ns, index):
    # Registered in linecache as IPython does, so inspect.getsource works on functions a cell
    # defines (TF's autograph and minitf's tf.function read the source of what they convert).
    name = f"<cell-{index}>"
    linecache.cache[name] = (len(code), None, code.splitlines(True), name)
    tree = ast.parse(code, name)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, name, "exec"), ns)
    if last is not None:
        value = eval(compile(last, name, "eval"), ns)
        if value is not None:
            print(repr(value))


def _error(exc, name):
    """Type, first message line, the failing line of this cell, the notebook frames and the library frame."""
    tb = traceback.extract_tb(exc.__traceback__)
    here = [f.lineno for f in tb if f.filename == name]
    notebook = [f"{f.filename}:{f.lineno}: {(f.line or '').strip()[:160]}"
                for f in tb if f.filename.startswith("<cell-")]
    inner = [f for f in tb if not f.filename.startswith("<cell-") and f.filename != __file__]
    msg = str(exc).strip().split("\n")[0][:300]
    mod = type(exc).__module__
    return {"type": type(exc).__name__ if mod == "builtins" else f"{mod}.{type(exc).__name__}", "message": msg,
            "cell_line": here[-1] if here else None, "notebook_frames": notebook[-4:],
            "where": f"{inner[-1].filename}:{inner[-1].lineno}" if inner else None}


def main():
    cells_path, lib, out_path, timeout = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    cells = json.load(open(cells_path))
    ns = _setup(lib)
    signal.signal(signal.SIGALRM, _on_alarm)
    with open(out_path, "a") as out:
        for cell in cells:
            rec = {"index": cell["index"]}
            if "skip" in cell:
                rec.update(status="skipped", reason=cell["skip"])
            else:
                buf = _Tee()
                t0 = time.time()
                signal.alarm(timeout)
                try:
                    with contextlib.redirect_stdout(buf):
                        _run(cell["code"], ns, cell["index"])
                    rec["status"] = "ok"
                except CellTimeout as exc:
                    rec.update(status="timeout", error={"type": "CellTimeout", "message": str(exc),
                                                         "cell_line": None, "where": None})
                except KeyboardInterrupt:
                    raise
                except BaseException as exc:  # SystemExit from a cell is a failure too
                    rec.update(status="error", error=_error(exc, f"<cell-{cell['index']}>"))
                finally:
                    signal.alarm(0)
                rec["seconds"] = round(time.time() - t0, 2)
                rec["stdout"] = buf.getvalue()
                try:
                    import matplotlib.pyplot as plt  # lazy: close figures so memory stays flat

                    plt.close("all")
                except Exception:
                    pass
            out.write(json.dumps(rec) + "\n")
            out.flush()


if __name__ == "__main__":
    main()
