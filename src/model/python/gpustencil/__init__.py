"""gpustencil's Python support for gprMax input files' #python blocks (installed in
share/gpustencil/python): input_cmd_funcs, gprMax 3's command helpers, and exceptions,
gprMax 3's exceptions. gpustencil's block runner (gs_blocks.py) serves them as
gprMax.input_cmd_funcs and gprMax.exceptions too."""
