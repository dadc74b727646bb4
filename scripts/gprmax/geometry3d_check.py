"""Compare gs_geometry3_build with gprMax 4 on gprMax's own geometry regression inputs
(reframe_tests/tests/src/geometry_tests/*): for each .in, gprMax builds the grid
(dump_ids.py, geometry only) and build/tests/test_geometry3d compares solid, the six ID
arrays and the materials element by element.
Usage: python3 scripts/gprmax/geometry3d_check.py [GPRMAX_SRC] [BUILD_DIR]"""
import glob
import os
import subprocess
import sys
import tempfile

src = sys.argv[1] if len(sys.argv) > 1 else "/work/gprmax-src"
build = sys.argv[2] if len(sys.argv) > 2 else "build"
here = os.path.dirname(os.path.abspath(__file__))
kinds = ["box", "cone", "cylinder", "cylindrical_sector", "edge", "ellipsoid", "plate", "sphere", "triangle"]
env = dict(os.environ, PYTHONPATH=src)
bad = 0
with tempfile.TemporaryDirectory() as tmp:
    for kind in kinds:
        for path in sorted(glob.glob(f"{src}/reframe_tests/tests/src/geometry_tests/{kind}_geometry/*.in")):
            name = os.path.basename(path)[:-3]
            local = os.path.join(tmp, name + ".in")
            with open(path) as f, open(local, "w") as g:
                g.write(f.read())  # unchanged; copied so gprMax's outputs land in tmp
            g3 = os.path.join(tmp, name + ".g3")
            r = subprocess.run(["/usr/bin/python3", os.path.join(here, "dump_ids.py"), local, g3], env=env,
                               capture_output=True, text=True)
            if r.returncode != 0:
                print(f"{kind}/{name}: gprMax failed: {r.stderr.strip().splitlines()[-1:]}")
                bad += 1
                continue
            t = subprocess.run([os.path.join(build, "tests", "test_geometry3d"), local, g3], capture_output=True,
                               text=True)
            lines = [x for x in t.stdout.splitlines() if "values differ" in x]
            summary = lines[0].split(": ", 1)[1] if lines else t.stdout.strip()
            print(f"{kind}/{name}: {'OK' if t.returncode == 0 else 'DIFFERS'}: {summary}")
            if t.returncode != 0:
                print(t.stderr.strip()[:1500])
                bad += 1
print("all agree" if bad == 0 else f"{bad} model(s) differ")
sys.exit(1 if bad else 0)
