"""gpustencil's runner of a gprMax input file's #python blocks (started by
src/model/scene_python.c as `python3 gs_blocks.py INPUTFILE RUN RUNS LIMIT`).

The blocks run one after the other in one namespace, as gprMax runs them: c,
e0, m0, z0, number_model_runs, current_model_run (1-based) and inputfile are
defined in it. What a block prints to sys.stdout is its output; the program
keeps the lines that start with '#' as input commands.

Protocol. stdin: "GSBLOCKS 1 N\\n", then N times "BYTES\\n" and the block's code
(UTF-8). stdout (a private copy of fd 1: fd 1 itself goes to stderr while the
blocks run, so nothing a block writes there can spoil it): for each block
"OUT BYTES\\n" and its output, then "END\\n"; or, when a block fails,
"ERR BLOCK LINE BYTES\\n" and a one-line message (BLOCK 0-based, LINE the
block's code line, 1-based, 0 when unknown). When stdin ends (the program
that started this one has gone), the process group is killed.

`import gprMax.input_cmd_funcs` and `gprMax.exceptions` give gpustencil's own
modules (gpustencil/ beside this file); any other part of gprMax is the user's
gprMax package when python3 can import it. Without one, a block that uses
gprMax 4's Python API fails with a message that says so.
"""

import importlib.abc
import importlib.machinery
import importlib.util
import io
import math
import os
import pathlib
import signal
import sys
import threading
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
OURS = {'gprMax.input_cmd_funcs': 'input_cmd_funcs', 'gprMax.exceptions': 'exceptions'}
GPRMAX4_ROOTS = ('gprMax', 'toolboxes')


class InputFile(str):
    """The input file's path (gprMax 3 gave a str, gprMax 4 a pathlib.Path): a str with
    Path's parent, name, stem and suffix."""

    @property
    def parent(self):
        return pathlib.Path(self).parent

    @property
    def name(self):
        return pathlib.Path(self).name

    @property
    def stem(self):
        return pathlib.Path(self).stem

    @property
    def suffix(self):
        return pathlib.Path(self).suffix

    def resolve(self):
        return pathlib.Path(self).resolve()


class TooMuchOutput(BaseException):
    """Raised (past any `except Exception`) when the blocks print more than allowed."""


class NeedGprMax4(AttributeError):
    """A block asked the stand-in gprMax package for a part of gprMax 4's API."""


class Capture(io.TextIOBase):
    """sys.stdout while a block runs: keeps what it prints, up to a bound."""

    def __init__(self, limit):
        super().__init__()
        self.parts, self.size, self.limit = [], 0, limit

    def writable(self):
        return True

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError('write() argument must be str, not ' + type(s).__name__)
        self.size += len(s)
        if self.size > self.limit:
            raise TooMuchOutput()
        self.parts.append(s)
        return len(s)

    def getvalue(self):
        return ''.join(self.parts)


class GprMaxLoader(importlib.abc.Loader):
    """Loads the user's gprMax package; where there is none, or its import fails, a
    stand-in that holds only gpustencil's modules."""

    real_error = None

    def __init__(self, real):
        self.real = real

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        if self.real is not None:
            try:
                module.__file__ = self.real.origin
                self.real.loader.exec_module(module)
                return
            except Exception as e:  # an unbuilt gprMax (a source folder on PYTHONPATH)
                GprMaxLoader.real_error = '{} ({})'.format(one_line(e), self.real.origin)
                for name in [n for n in sys.modules if n.startswith('gprMax.')]:
                    del sys.modules[name]
        module.__path__ = []
        module.__gs_stand_in__ = True

        def missing(attr):
            raise NeedGprMax4("module 'gprMax' (gpustencil's stand-in) has no attribute '{}'".format(attr))

        module.__getattr__ = missing


class GprMaxFinder(importlib.abc.MetaPathFinder):
    """gprMax: the user's package behind GprMaxLoader; gprMax.input_cmd_funcs (and
    gprMax.exceptions where the package has none): gpustencil's."""

    def find_spec(self, name, path=None, target=None):
        if name == 'gprMax':
            real = importlib.machinery.PathFinder.find_spec(name)
            spec = importlib.machinery.ModuleSpec(name, GprMaxLoader(real), is_package=True)
            if real is not None and real.submodule_search_locations is not None:
                spec.submodule_search_locations = list(real.submodule_search_locations)
            return spec
        if name not in OURS:
            return None
        package = sys.modules.get('gprMax')
        if name == 'gprMax.exceptions' and package is not None and not getattr(package, '__gs_stand_in__', False):
            if importlib.machinery.PathFinder.find_spec(name, package.__path__) is not None:
                return None
        return importlib.util.spec_from_file_location(name, os.path.join(HERE, 'gpustencil', OURS[name] + '.py'))


def one_line(e):
    """Python's last line about exception e, on one line."""
    text = ''.join(traceback.format_exception_only(type(e), e)).strip().splitlines()
    last = text[-1] if text else type(e).__name__
    return ' '.join(last.split()) or type(e).__name__


def import_root(e):
    """The top-level package an import error is about, or ''."""
    name = getattr(e, 'name', None) or ''
    return name.split('.')[0]


def user_libs_hint(name, statement):
    """Where the user_libs module a block could not import lives now (name: the module
    Python missed, statement: the block's line that imported it)."""
    if name.startswith('user_libs.GPRAntennaModels') or 'GPRAntennaModels' in statement:
        return (" (gprMax 4 moved user_libs.GPRAntennaModels to toolboxes.GPRAntennaModels: import it from there, "
                "with the folder holding gprMax 4's toolboxes/ as the working directory or on PYTHONPATH)")
    return " (gprMax 3's antenna models: put the folder that holds gprMax 3's user_libs/ on PYTHONPATH)"


def explain(e, block_name, code):
    """(line in the block, one-line message) for exception e raised by the block code."""
    line, deepest = 0, None
    if isinstance(e, SyntaxError) and e.filename == block_name:
        line = e.lineno or 0
    tb = e.__traceback__
    while tb is not None:
        where = tb.tb_frame.f_code.co_filename
        if where == block_name:
            line = tb.tb_lineno
        if os.path.abspath(where) != os.path.abspath(__file__):  # not this runner's own frames
            deepest = tb
        tb = tb.tb_next
    message = one_line(e)
    if isinstance(e, TooMuchOutput):
        message = 'the blocks printed more than {} MiB'.format(LIMIT >> 20) if LIMIT >= 1 << 20 else \
            'the blocks printed more than {} characters'.format(LIMIT)
    elif isinstance(e, SystemExit):
        message = 'the block called sys.exit({!r})'.format(e.code)
    elif isinstance(e, NeedGprMax4) or (isinstance(e, ImportError) and import_root(e) in GPRMAX4_ROOTS):
        why = GprMaxLoader.real_error
        message = ("this block uses gprMax 4's Python API, which needs the gprMax package importable by python3 "
                   "(PYTHONPATH: the folder holding gprMax/ and toolboxes/, built): " +
                   ('its import failed: ' + why if why else message))
    elif isinstance(e, NameError) and getattr(e, 'name', None) == 'optparams':
        message += " (gprMax 3's #taguchi optimisation sets optparams; gpustencil does not run #taguchi)"
    elif isinstance(e, ImportError) and import_root(e) == 'user_libs':
        lines = code.splitlines()
        message += user_libs_hint(getattr(e, 'name', None) or '', lines[line - 1] if 0 < line <= len(lines) else '')
    if deepest is not None and deepest.tb_frame.f_code.co_filename != block_name and not isinstance(e, NeedGprMax4):
        message += ' (in {}, line {})'.format(deepest.tb_frame.f_code.co_filename, deepest.tb_lineno)
    return line, message


def read_blocks(stream):
    header = stream.readline().split()
    if len(header) != 3 or header[0] != b'GSBLOCKS' or header[1] != b'1':
        raise SystemExit('gs_blocks.py: not started by gpustencil')
    blocks = []
    for _ in range(int(header[2])):
        size = int(stream.readline())
        blocks.append(stream.read(size).decode('utf-8', 'replace'))
    return blocks


def watch_parent(fd):
    """Ends this process group once the program that started it has gone (its end of
    stdin closed). Reads the descriptor itself: a thread left blocked in a buffered
    reader would stop the interpreter's shutdown."""
    while os.read(fd, 65536):
        pass
    try:
        if os.getpgrp() == os.getpid():  # the group gpustencil made for the blocks
            os.killpg(os.getpgrp(), signal.SIGKILL)
    finally:
        os._exit(3)


def send(proto, head, payload):
    proto.write(head.encode('ascii') + b' ' + str(len(payload)).encode('ascii') + b'\n' + payload)
    proto.flush()


def run(blocks, namespace, proto):
    used = 0
    for k, code in enumerate(blocks):
        name = '<#python block {}>'.format(k + 1)
        capture, saved = Capture(LIMIT - used), sys.stdout
        sys.stdout = capture
        try:
            exec(compile(code, name, 'exec', dont_inherit=True), namespace)
        except BaseException as e:
            sys.stdout = saved
            line, message = explain(e, name, code)
            send(proto, 'ERR {} {}'.format(k, line), message.encode('utf-8', 'replace'))
            return
        finally:
            sys.stdout = saved
        out = capture.getvalue().encode('utf-8', 'replace')
        used += capture.size
        send(proto, 'OUT', out)
    proto.write(b'END\n')
    proto.flush()


def main():
    global LIMIT
    inputfile, current, runs, LIMIT = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    proto = os.fdopen(os.dup(1), 'wb')
    os.dup2(2, 1)
    sys.stdout = sys.__stdout__ = io.TextIOWrapper(os.fdopen(1, 'wb', closefd=False), line_buffering=True)
    blocks = read_blocks(sys.stdin.buffer)
    threading.Thread(target=watch_parent, args=(sys.stdin.fileno(), ), daemon=True).start()
    sys.meta_path.insert(0, GprMaxFinder())
    e0, m0 = 8.8541878128e-12, 1.25663706212e-6  # CODATA 2018, scipy's (gprMax 4's) values
    namespace = {
        'c': 299792458.0,
        'e0': e0,
        'm0': m0,
        'z0': math.sqrt(m0 / e0),
        'number_model_runs': runs,
        'current_model_run': current,
        'inputfile': InputFile(os.path.realpath(inputfile)),
    }
    del sys.argv[1:]
    # Imports resolve as under `python -m gprMax`: the working directory first (a module beside
    # the input, or gprMax's toolboxes/ when run from gprMax's folder), not this runner's folder.
    sys.path[0] = os.getcwd()
    run(blocks, namespace, proto)


LIMIT = 0
if __name__ == '__main__':
    main()
