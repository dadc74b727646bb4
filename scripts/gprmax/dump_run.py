"""Run gprMax on an input file exactly as `python3 -m gprMax FILE [-n N]` would, and in
addition dump the built grid (ID/solid arrays, material table, coefficient tables, PML
coefficients) of each model to FILE-stem[_m].grid.npz next to the input file.
Usage: PYTHONPATH=/work/gprmax-src python3 dump_run.py model.in [N]
(Own helper for the notes; it only observes gprMax objects, it changes nothing.)"""
import sys
from pathlib import Path

import numpy as np

import gprMax
from gprMax import config
from gprMax.model import Model

_orig = Model.write_output_data


def _dump(self):
    G = self.G
    mats = G.materials
    pml = {}
    for s in G.pmls["slabs"]:
        for nm in ("ERA", "ERB", "ERE", "ERF", "HRA", "HRB", "HRE", "HRF"):
            pml[f"pml_{s.ID}_{nm}"] = getattr(s, nm)
        pml[f"pml_{s.ID}_sigmamax"] = np.array([c.sigma.max for c in s.CFS], dtype=np.float64)
    out = Path(str(config.get_model_config().output_file_path) + ".grid.npz")
    np.savez_compressed(
        out,
        ID=G.ID, solid=G.solid,
        mat_names=np.array([m.ID for m in mats]),
        mat_er=np.array([m.er for m in mats], dtype=np.float64),
        mat_se=np.array([m.se for m in mats], dtype=np.float64),
        mat_mr=np.array([m.mr for m in mats], dtype=np.float64),
        mat_sm=np.array([m.sm for m in mats], dtype=np.float64),
        mat_averagable=np.array([m.averagable for m in mats]),
        updatecoeffsE=G.updatecoeffsE, updatecoeffsH=G.updatecoeffsH,
        dt=np.float64(G.dt), iterations=np.int64(G.iterations), **pml,
    )
    _orig(self)


Model.write_output_data = _dump

if __name__ == "__main__":
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    gprMax.run(inputfile=sys.argv[1], n=n)
