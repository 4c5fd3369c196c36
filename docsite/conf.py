"""Sphinx configuration of the nubes.cloud docs site (`make docs-site`; scripts/docsite.py copies this file into
build/docsite/src/ beside the pages it assembles).

It follows what `antsibull-docs sphinx-init` writes for a collection docsite (the antsibull Sphinx extension, the
Ansible theme and Pygments style, nitpicky references, warnings as errors), with these differences:
- myst-parser reads the Markdown guides (README.md, docs/*.md): sphinx-init's `--extra-conf` can only add string
  settings, and an extension and an integer setting are needed;
- the references to pages of the Ansible documentation (return values, configuration settings) resolve through
  an intersphinx inventory written from docsite/ansible-objects.txt, not fetched: the site builds offline, and an
  inventory that cannot be fetched is a warning, which `-W` turns into a failed build;
- code blocks without a language are not highlighted (sphinx-init's YAML+Jinja default would fail, and so warn,
  on the guides' shell and ASCII blocks).
"""

project = "nubes.cloud"
project_copyright = "nubes.cloud contributors, GPL-3.0-or-later"
html_title = "nubes.cloud documentation"
html_short_title = "nubes.cloud"

extensions = ["sphinx.ext.intersphinx", "sphinx_antsibull_ext", "myst_parser"]
# scripts/docsite.py writes ansible-objects.inv beside this file (in the source directory) from
# docsite/ansible-objects.txt.
intersphinx_mapping = {"ansible": ("https://docs.ansible.com/ansible/latest/", "ansible-objects.inv")}
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"

pygments_style = "ansible"
highlight_language = "none"

html_theme = "sphinx_ansible_theme"
html_show_sphinx = False
html_use_index = False
html_copy_source = False
html_show_sourcelink = False

default_role = "any"
nitpicky = True

# Markdown headings get the anchors GitHub gives them, so the guides' links (`state.md#locking`) work on the site
# as they do on GitHub; myst-parser warns (and -W fails the build) on a link to an anchor that does not exist.
myst_heading_anchors = 6
