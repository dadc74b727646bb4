"""gpustencil's gprMax 3 command helpers (src/model/python/gpustencil/input_cmd_funcs.py) print
what gprMax 3's documented functions print, and gs_blocks.py serves them as
gprMax.input_cmd_funcs. Usage: python3 python_helpers.py SHARE_PYTHON_DIR (the build tree's or an
installation's share/gpustencil/python)."""

import contextlib
import io
import sys

sys.path.insert(0, sys.argv[1])
from gpustencil.input_cmd_funcs import *  # noqa: E402,F403
from gpustencil.exceptions import CmdInputError  # noqa: E402

failed = 0


def printed(call):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        value = call()
    return out.getvalue(), value


def check(what, call, want, value=None):
    global failed
    got, ret = printed(call)
    if got != want + '\n' or (value is not None and ret != value):
        print('FAIL: {}: printed {!r}, returned {!r}; want {!r}{}'.format(
            what, got, ret, want, '' if value is None else ', ' + repr(value)))
        failed = 1


# Coordinates print with '{:g}' (six significant digits), other values with str(); None is left out.
check('domain', lambda: domain(0.25, 0.188, 0.22), '#domain: 0.25 0.188 0.22', Coordinate(0.25, 0.188, 0.22))
check('domain {:g}', lambda: domain(0.1234567, 1e-7, 2), '#domain: 0.123457 1e-07 2')
check('dx_dy_dz', lambda: dx_dy_dz(0.001, 0.001, 0.001), '#dx_dy_dz: 0.001 0.001 0.001')
check('time_window', lambda: time_window(3e-9), '#time_window: 3e-09', 3e-9)
check('time_window iterations', lambda: time_window(2100), '#time_window: 2100', 2100)
check('material', lambda: material(3, (1 / 925) * (0.001 / (0.001 * 0.001)), 1, 0, 'rxres'),
      '#material: 3 1.0810810810810811 1 0 rxres')
check('waveform', lambda: waveform('ricker', 1, 1.5e9, 'my_ricker'), '#waveform: ricker 1 1500000000.0 my_ricker',
      'my_ricker')
check('box', lambda: box(0, 0, 0, 0.1, 0.05, 0.002, 'soil'), '#box: 0 0 0 0.1 0.05 0.002 soil ',
      (Coordinate(0, 0, 0), Coordinate(0.1, 0.05, 0.002)))
check('box averaging', lambda: box(0, 0, 0, 1, 1, 1, 'soil', 'n'), '#box: 0 0 0 1 1 1 soil n')
check('cylinder', lambda: cylinder(0.1, 0.2, 0, 0.1, 0.2, 0.002, 0.01, 'pec'),
      '#cylinder: 0.1 0.2 0 0.1 0.2 0.002 0.01 pec ')
check('sphere', lambda: sphere(0.1, 0.1, 0.1, 0.05, 'pec', 'y'), '#sphere: 0.1 0.1 0.1 0.05 pec y')
check('triangle', lambda: triangle(0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 'pec'),
      '#triangle: 0 0 0 1 0 0 0 1 0 0 pec ')
check('edge', lambda: edge(0.1, 0.1, 0.1, 0.1, 0.2, 0.1, 'pec'), '#edge: 0.1 0.1 0.1 0.1 0.2 0.1 pec')
check('plate', lambda: plate(0, 0, 0.1, 0.2, 0.2, 0.1, 'pec'), '#plate: 0 0 0.1 0.2 0.2 0.1 pec')
check('cylindrical_sector', lambda: cylindrical_sector('z', 0.1, 0.1, 0, 0.002, 0.05, 30, 60, 'pec'),
      '#cylindrical_sector: z 0.1 0.1 0 0.002 0.05 30 60 pec ')
check('hertzian_dipole', lambda: hertzian_dipole('z', 0.05, 0.07, 0, 'w'), '#hertzian_dipole: z 0.05 0.07 0 w',
      Coordinate(0.05, 0.07, 0))
check('hertzian_dipole times', lambda: hertzian_dipole('z', 0.05, 0.07, 0, 'w', 1e-9, 2e-9),
      '#hertzian_dipole: z 0.05 0.07 0 w 1e-09 2e-09')
check('magnetic_dipole', lambda: magnetic_dipole('x', 0.05, 0.07, 0.01, 'w'), '#magnetic_dipole: x 0.05 0.07 0.01 w')
check('voltage_source', lambda: voltage_source('y', 0.1, 0.1, 0.1, 50, 'w'), '#voltage_source: y 0.1 0.1 0.1 50 w')
check('transmission_line', lambda: transmission_line('z', 0.1, 0.1, 0.1, 73, 'w'),
      '#transmission_line: z 0.1 0.1 0.1 73 w')
check('rx', lambda: rx(0, 0, 0), '#rx: 0 0 0 ')
check('rx name', lambda: rx(0, 1, 2, 'id'), '#rx: 0 1 2 id ')
check('rx outputs', lambda: rx(2, 1, 0, 'id', ['Ex', 'Ez']), '#rx: 2 1 0 id Ex Ez')
check('src_steps', lambda: src_steps(), '#src_steps: 0 0 0')
check('src_steps 2', lambda: src_steps(42, 43, 44.2), '#src_steps: 42 43 44.2')
check('rx_steps', lambda: rx_steps(dx=0.002), '#rx_steps: 0.002 0 0')
check('snapshot seconds', lambda: snapshot(0, 0, 0, 0.1, 0.1, 0.1, 0.01, 0.01, 0.01, 1.5e-9, 's1'),
      '#snapshot: 0 0 0 0.1 0.1 0.1 0.01 0.01 0.01 1.5e-09 s1')
check('snapshot iteration', lambda: snapshot(0, 0, 0, 0.1, 0.1, 0.1, 0.01, 0.01, 0.01, 100, 's1'),
      '#snapshot: 0 0 0 0.1 0.1 0.1 0.01 0.01 0.01 100 s1')
check('geometry_view', lambda: geometry_view(0, 0, 0, 0.1, 0.1, 0.002, 0.002, 0.002, 0.002, 'g'),
      '#geometry_view: 0 0 0 0.1 0.1 0.002 0.002 0.002 0.002 g n')
check('geometry_objects_read', lambda: geometry_objects_read(0, 0, 0, 'g.h5', 'g.txt'),
      '#geometry_objects_read: 0 0 0 g.h5 g.txt')
check('excitation_file', lambda: excitation_file('pulse.txt'), '#excitation_file: pulse.txt', 'pulse.txt')
check('command', lambda: command('title', 'a', None, 'b'), '#title: a b', '#title: a b')

# 90 degree turns in the x-y plane, as gprMax 3's rotate90origin. Two checks differ from gprMax 3 on
# purpose: rx outputs are separated by blanks (gprMax 3 ran them together, 'ExEz', which its own
# parser refused; its own test expects blanks), and a z-polarised source turns (gprMax 3 failed).
check('rx turned x', lambda: rx(2, 1, 0, 'id', ['Ex', 'Ez'], polarisation='x', rotate90origin=(1, 1), dxdy=(0, 0)),
      '#rx: 1 2 0 id Ex Ez')
check('rx turned y', lambda: rx(2, 1, 0, 'id', ['Ex', 'Ez'], polarisation='y', rotate90origin=(1, 1), dxdy=(0, 0)),
      '#rx: 1 2 0 id Ex Ez')
check('box turned', lambda: box(0, 0, 0, 2, 1, 1, 'pec', rotate90origin=(1, 1)), '#box: 1 0 0 2 2 1 pec ')
check('plate turned', lambda: plate(0, 0, 0, 2, 1, 0, 'pec', rotate90origin=(0, 0)), '#plate: -1 0 0 0 2 0 pec')
check('edge turned y', lambda: edge(1, 0, 0, 1, 2, 0, 'pec', rotate90origin=(0, 0)), '#edge: -2 1 0 0 1 0 pec')
check('edge turned x', lambda: edge(0, 1, 0, 2, 1, 0, 'pec', rotate90origin=(0, 0)), '#edge: -1 0 0 -1 2 0 pec')
check('voltage_source turned', lambda: voltage_source('y', 0.03, 0.04, 0.028, 50, 'g', dxdy=(0.002, 0.002),
                                                      rotate90origin=(0.04, 0.04)),
      '#voltage_source: x 0.038 0.03 0.028 50 g')
check('hertzian_dipole turned z', lambda: hertzian_dipole('z', 2, 1, 0, 'w', rotate90origin=(1, 1)),
      '#hertzian_dipole: z 1 2 0 w')
check('cylinder turned', lambda: cylinder(2, 1, 0, 2, 1, 1, 0.5, 'pec', rotate90origin=(0, 0)),
      '#cylinder: -1 2 0 -1 2 1 0.5 pec ')
check('triangle turned', lambda: triangle(1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 'pec', rotate90origin=(0, 0)),
      '#triangle: 0 1 0 -1 0 0 0 0 0 0 pec ')
try:
    printed(lambda: rx(2, 1, 0, 'id', ['Ex'], polarisation='x', rotate90origin=(1, 1)))
    print('FAIL: rx turned without dxdy: no ValueError')
    failed = 1
except ValueError:
    pass
if not issubclass(CmdInputError, ValueError):
    print('FAIL: CmdInputError is not a ValueError')
    failed = 1
print('python_helpers: ' + ('FAILED' if failed else 'ok'))
sys.exit(failed)
