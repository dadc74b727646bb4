"""A small antenna-like model written the way gprMax 3's antenna models (user_libs/antennas)
are written: materials, boxes, plates, edges, a voltage source and a receiver from
gprMax.input_cmd_funcs, a CmdInputError from gprMax.exceptions, and a 90 degree turn in the
x-y plane on request. Written for gpustencil's tests (tests/python_blocks.sh); not a real
antenna."""

from gprMax.exceptions import CmdInputError
from gprMax.input_cmd_funcs import *


def antenna_like_toy(x, y, z, resolution=0.002, rotate90=False):
    """A case of 40 x 32 x 12 mm whose centre in x-y is (x, y) and whose skid rests at z:
    a transmitting and a receiving bowtie on a PCB under an absorber, 2 mm cells only."""
    if resolution != 0.002:
        raise CmdInputError('antenna_like_toy: only 2 mm cells, not {}'.format(resolution))
    origin, output = ((x, y), 'Ex') if rotate90 else ((), 'Ey')
    dx = dy = resolution
    case = (0.040, 0.032, 0.012)
    x0, y0 = x - case[0] / 2, y - case[1] / 2
    pcb = z + 0.002

    material(2.35, 0, 1, 0, 'hdpe')
    material(3, 0, 1, 0, 'pcb')
    material(1.58, 0.428, 1, 0, 'absorber')
    material(3, 0.2, 1, 0, 'rxres')

    box(x0, y0, z, x0 + case[0], y0 + case[1], z + case[2], 'hdpe', rotate90origin=origin)
    box(x0 + 0.002, y0 + 0.002, pcb, x0 + case[0] - 0.002, y0 + case[1] - 0.002, z + case[2] - 0.002, 'free_space',
        rotate90origin=origin)
    box(x0 + 0.004, y0 + 0.004, pcb + 0.004, x0 + case[0] - 0.004, y0 + case[1] - 0.004, z + case[2] - 0.002,
        'absorber', rotate90origin=origin)
    box(x0 + 0.002, y0 + 0.002, pcb, x0 + case[0] - 0.002, y0 + case[1] - 0.002, pcb + 0.002, 'pcb',
        rotate90origin=origin)

    # the bowties: plates narrowing towards the feed, the transmitter left, the receiver right
    tx, rxat = (x - 0.010, y), (x + 0.010, y)
    for cx, cy in (tx, rxat):
        for a in range(3):
            w = 0.012 - 2 * a * dx  # whole cells either side of the centre
            plate(cx - w / 2, cy - 0.008 + a * dy, pcb + 0.002, cx + w / 2, cy - 0.008 + (a + 1) * dy, pcb + 0.002,
                  'pec', rotate90origin=origin)
            plate(cx - w / 2, cy + 0.006 - a * dy, pcb + 0.002, cx + w / 2, cy + 0.008 - a * dy, pcb + 0.002, 'pec',
                  rotate90origin=origin)
        edge(cx, cy - 0.002, pcb + 0.002, cx, cy, pcb + 0.002, 'pec', rotate90origin=origin)

    print('#waveform: gaussian 1 {} toyGaussian'.format(4e9))
    voltage_source('y', tx[0], tx[1], pcb + 0.002, 50, 'toyGaussian', dxdy=(dx, dy), rotate90origin=origin)
    edge(rxat[0], rxat[1], pcb + 0.002, rxat[0], rxat[1] + dy, pcb + 0.002, 'rxres', rotate90origin=origin)
    rx(rxat[0], rxat[1], pcb + 0.002, identifier='rxbowtie', to_save=[output], polarisation='y', dxdy=(dx, dy),
       rotate90origin=origin)
