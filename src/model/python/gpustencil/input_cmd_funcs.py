"""gprMax 3's command helpers for #python blocks, written for gpustencil.

Each function prints one gprMax input command (the text a #python block prints
becomes input commands) and returns what gprMax 3's function of that name
returns, so that files written for gprMax 3 (``from gprMax.input_cmd_funcs
import *``) and gprMax 3's antenna models (user_libs/antennas) print the same
commands here. gpustencil's block runner makes this module importable as
``gprMax.input_cmd_funcs``; it is also ``gpustencil.input_cmd_funcs``.

Numbers print as gprMax 3 prints them: coordinates (a Coordinate) with
'{:g}' (six significant digits), every other value with str(). Values that are
None are left out. One difference on purpose: rx() separates its outputs with
blanks ('#rx: x y z name Ex Ez'), which gprMax 4 and gpustencil read (gprMax 3
ran them together, 'ExEz', and then refused its own line).
"""

import sys  # noqa: F401 (gprMax 3's module exported it to 'import *' too)
from collections import namedtuple


class Coordinate(namedtuple('Coordinate', ['x', 'y', 'z'])):
    """A point or extent (x, y, z) that prints as 'x y z', each with '{:g}'."""

    __slots__ = ()

    def __str__(self):
        return ' '.join(format(v, 'g') for v in self)


def command(cmd, *parameters):
    """Prints '#cmd: p1 p2 ...' (each parameter with str(), None left out); returns the line."""
    words = [str(p) for p in parameters if p is not None]
    line = '#' + str(cmd) + ': ' + ' '.join(words)
    print(line)
    return line


def rotate90_point(x, y, rotate90origin=()):
    """The point (x, y) turned 90 degrees anticlockwise about rotate90origin (x, y)."""
    ox, oy = rotate90origin[0], rotate90origin[1]
    dx, dy = x - ox, y - oy
    return -dy + ox, dx + oy


def rotate90_edge(xs, ys, xf, yf, polarisation, rotate90origin):
    """An edge from (xs, ys) to (xf, yf) turned 90 degrees anticlockwise; a y-directed
    edge becomes an x-directed one whose ends are swapped so that it still runs upwards."""
    sx, sy = rotate90_point(xs, ys, rotate90origin)
    fx, fy = rotate90_point(xf, yf, rotate90origin)
    if polarisation == 'y':
        return fx, sy, sx, fy
    return sx, sy, fx, fy


def rotate90_plate(xs, ys, xf, yf, rotate90origin):
    """A plate or box corner pair turned 90 degrees anticlockwise, the x ends swapped."""
    sx, sy = rotate90_point(xs, ys, rotate90origin)
    fx, fy = rotate90_point(xf, yf, rotate90origin)
    return fx, sy, sx, fy


def domain(x, y, z):
    """#domain; returns its extent as a Coordinate."""
    extent = Coordinate(x, y, z)
    command('domain', extent)
    return extent


def dx_dy_dz(x, y, z):
    """#dx_dy_dz; returns the cell size as a Coordinate."""
    cell = Coordinate(x, y, z)
    command('dx_dy_dz', cell)
    return cell


def time_window(time_window):
    """#time_window (seconds, or an iteration count given as an int); returns it."""
    command('time_window', time_window)
    return time_window


def material(permittivity, conductivity, permeability, magconductivity, name):
    """#material: er sigma mu_r sigma_m name."""
    command('material', permittivity, conductivity, permeability, magconductivity, name)


def geometry_view(xs, ys, zs, xf, yf, zf, dx, dy, dz, filename, type='n'):
    """#geometry_view; returns the start, finish and step Coordinates."""
    s, f, d = Coordinate(xs, ys, zs), Coordinate(xf, yf, zf), Coordinate(dx, dy, dz)
    command('geometry_view', s, f, d, filename, type)
    return s, f, d


def snapshot(xs, ys, zs, xf, yf, zf, dx, dy, dz, time, filename):
    """#snapshot at time (seconds when written with a point or exponent, else an
    iteration); returns the start, finish and step Coordinates."""
    s, f, d = Coordinate(xs, ys, zs), Coordinate(xf, yf, zf), Coordinate(dx, dy, dz)
    text = str(time)
    when = format(float(time), 'g') if ('.' in text or 'e' in text) else str(int(time))
    command('snapshot', s, f, d, when, filename)
    return s, f, d


def edge(xs, ys, zs, xf, yf, zf, material, rotate90origin=()):
    """#edge; returns the start and finish Coordinates."""
    if rotate90origin:
        along = 'y' if xs == xf else 'x'
        xs, ys, xf, yf = rotate90_edge(xs, ys, xf, yf, along, rotate90origin)
    s, f = Coordinate(xs, ys, zs), Coordinate(xf, yf, zf)
    command('edge', s, f, material)
    return s, f


def plate(xs, ys, zs, xf, yf, zf, material, rotate90origin=()):
    """#plate; returns the start and finish Coordinates."""
    if rotate90origin:
        xs, ys, xf, yf = rotate90_plate(xs, ys, xf, yf, rotate90origin)
    s, f = Coordinate(xs, ys, zs), Coordinate(xf, yf, zf)
    command('plate', s, f, material)
    return s, f


def triangle(x1, y1, z1, x2, y2, z2, x3, y3, z3, thickness, material, averaging='', rotate90origin=()):
    """#triangle; returns the three vertices as Coordinates."""
    if rotate90origin:
        x1, y1 = rotate90_point(x1, y1, rotate90origin)
        x2, y2 = rotate90_point(x2, y2, rotate90origin)
        x3, y3 = rotate90_point(x3, y3, rotate90origin)
    v1, v2, v3 = Coordinate(x1, y1, z1), Coordinate(x2, y2, z2), Coordinate(x3, y3, z3)
    command('triangle', v1, v2, v3, thickness, material, averaging)
    return v1, v2, v3


def box(xs, ys, zs, xf, yf, zf, material, averaging='', rotate90origin=()):
    """#box; returns the start and finish Coordinates."""
    if rotate90origin:
        xs, ys, xf, yf = rotate90_plate(xs, ys, xf, yf, rotate90origin)
    s, f = Coordinate(xs, ys, zs), Coordinate(xf, yf, zf)
    command('box', s, f, material, averaging)
    return s, f


def sphere(x, y, z, radius, material, averaging=''):
    """#sphere; returns the centre as a Coordinate."""
    centre = Coordinate(x, y, z)
    command('sphere', centre, radius, material, averaging)
    return centre


def cylinder(x1, y1, z1, x2, y2, z2, radius, material, averaging='', rotate90origin=()):
    """#cylinder; returns the centres of its two faces as Coordinates."""
    if rotate90origin:
        x1, y1 = rotate90_point(x1, y1, rotate90origin)
        x2, y2 = rotate90_point(x2, y2, rotate90origin)
    c1, c2 = Coordinate(x1, y1, z1), Coordinate(x2, y2, z2)
    command('cylinder', c1, c2, radius, material, averaging)
    return c1, c2


def cylindrical_sector(axis, ctr1, ctr2, t1, t2, radius, startingangle, sweptangle, material, averaging=''):
    """#cylindrical_sector (angles in degrees)."""
    command('cylindrical_sector', axis, ctr1, ctr2, t1, t2, radius, startingangle, sweptangle, material, averaging)


def excitation_file(file1):
    """#excitation_file; returns the file name."""
    command('excitation_file', file1)
    return file1


def waveform(shape, amplitude, frequency, identifier):
    """#waveform; returns its identifier (for a source)."""
    command('waveform', shape, amplitude, frequency, identifier)
    return identifier


def _turned_source(polarisation, f1, f2, dxdy, rotate90origin):
    """A source or receiver at (f1, f2) polarised along x or y, turned 90 degrees: its
    edge (one cell long) turned, the new lower end and the swapped polarisation. Along z
    (or with no polarisation) the point turns and the polarisation stays."""
    if polarisation not in ('x', 'y'):
        f1, f2 = rotate90_point(f1, f2, rotate90origin)
        return polarisation, f1, f2
    if polarisation == 'x':
        xf, yf, turned = f1 + dxdy[0], f2, 'y'
    else:
        xf, yf, turned = f1, f2 + dxdy[1], 'x'
    f1, f2, _, _ = rotate90_edge(f1, f2, xf, yf, polarisation, rotate90origin)
    return turned, f1, f2


def _source(cmd, polarisation, f1, f2, f3, before, identifier, t0, t_remove, dxdy, rotate90origin):
    if rotate90origin:
        polarisation, f1, f2 = _turned_source(polarisation, f1, f2, dxdy, rotate90origin)
    at = Coordinate(f1, f2, f3)
    command(cmd, polarisation, str(at), *before, identifier, t0, t_remove)
    return at


def hertzian_dipole(polarisation, f1, f2, f3, identifier, t0=None, t_remove=None, dxdy=None, rotate90origin=()):
    """#hertzian_dipole (the delay and removal time when given); returns the point."""
    return _source('hertzian_dipole', polarisation, f1, f2, f3, (), identifier, t0, t_remove, dxdy, rotate90origin)


def magnetic_dipole(polarisation, f1, f2, f3, identifier, t0=None, t_remove=None, dxdy=None, rotate90origin=()):
    """#magnetic_dipole (the delay and removal time when given); returns the point."""
    return _source('magnetic_dipole', polarisation, f1, f2, f3, (), identifier, t0, t_remove, dxdy, rotate90origin)


def voltage_source(polarisation, f1, f2, f3, resistance, identifier, t0=None, t_remove=None, dxdy=None,
                   rotate90origin=()):
    """#voltage_source (the delay and removal time when given); returns the point."""
    return _source('voltage_source', polarisation, f1, f2, f3, (resistance, ), identifier, t0, t_remove, dxdy,
                   rotate90origin)


def transmission_line(polarisation, f1, f2, f3, resistance, identifier, t0=None, t_remove=None, dxdy=None,
                      rotate90origin=()):
    """#transmission_line (the delay and removal time when given); returns the point."""
    return _source('transmission_line', polarisation, f1, f2, f3, (resistance, ), identifier, t0, t_remove, dxdy,
                   rotate90origin)


def rx(x, y, z, identifier=None, to_save=None, polarisation=None, dxdy=None, rotate90origin=()):
    """#rx: x y z [identifier outputs...]; returns the point. Turned 90 degrees, a receiver
    polarised along x or y needs dxdy (the cell's x and y sizes)."""
    if rotate90origin:
        if polarisation in ('x', 'y') and not dxdy:
            raise ValueError('rx: turning a receiver polarised along {} needs dxdy, got {!r}'.format(
                polarisation, dxdy))
        _, x, y = _turned_source(polarisation, x, y, dxdy, rotate90origin)
    at = Coordinate(x, y, z)
    outputs = ' '.join(to_save) if to_save is not None else ''
    command('rx', str(at), identifier, outputs)
    return at


def src_steps(dx=0, dy=0, dz=0):
    """#src_steps; returns the steps as a Coordinate."""
    steps = Coordinate(dx, dy, dz)
    command('src_steps', str(steps))
    return steps


def rx_steps(dx=0, dy=0, dz=0):
    """#rx_steps; returns the steps as a Coordinate."""
    steps = Coordinate(dx, dy, dz)
    command('rx_steps', str(steps))
    return steps


def geometry_objects_read(x, y, z, file1, file2):
    """#geometry_objects_read: x y z geometry.h5 materials.txt; returns the corner."""
    corner = Coordinate(x, y, z)
    command('geometry_objects_read', str(corner), file1, file2)
    return corner
