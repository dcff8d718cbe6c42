"""Run every benchmark workload in one process session and print their ratios.

    python benchmarks/run_all.py            # minitf and numpy (+ TF / PyTorch when installed)
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOADS = ["bench_tape.py", "bench_models.py", "bench_conv.py", "bench_optimizer.py",
             "bench_checkpoint.py", "bench_fit.py", "bench_style_transfer.py", "bench_pipeline.py",
             "bench_layer_call.py"]


def main():
    """Run each benchmark script in turn with this interpreter."""
    for name in WORKLOADS:
        print(f"\n#### {name}", flush=True)
        subprocess.run([sys.executable, os.path.join(HERE, name)], check=False)


if __name__ == "__main__":
    main()
