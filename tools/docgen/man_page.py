"""man_page: a roff man page (section 1) of a CLI11 program, from its --help.

tools/gen-docs gives it what it has already run for docs/reference/cli.md:
each (subcommand words, --help text) of one program, and the words it adds
(a description, exit codes, environment, see also); it returns the page for
docs/man/NAME.1, read with `man -l docs/man/NAME.1`. Sections: NAME,
SYNOPSIS, DESCRIPTION, OPTIONS, COMMANDS (each subcommand, its positionals
and options), then EXIT STATUS, ENVIRONMENT and SEE ALSO where given.

Reads CLI11's help layout: the description, `Usage: ...`, then `Positionals:`,
`Options:` and `Subcommands:` sections whose entries start at column 2 with
their description at column 30 (or on the next line, there, when the entry
is longer), then any footer. Deterministic: no date, version or path.
Standard library only."""

import re

SECTIONS = ("Positionals:", "Options:", "Subcommands:")
DESC_COLUMN = 30


def escape(text):
    """Text for a roff text line: backslashes, minus signs, non-ASCII."""
    out = []
    for ch in text.replace("\\", "\\e"):
        if ch == "-":
            out.append("\\-")
        elif ord(ch) > 126 or (ord(ch) < 32 and ch != "\t"):
            out.append("\\[u%04X]" % ord(ch))
        else:
            out.append(ch)
    line = "".join(out)
    # A line opening with . or ' would be read as a request.
    return "\\&" + line if line[:1] in (".", "'") else line


def parse_help(text):
    """{description, usage, Positionals/Options/Subcommands: [(spec, desc)], footer}."""
    lines = text.rstrip("\n").splitlines()
    help_ = {"description": [], "usage": "", "footer": []}
    for s in SECTIONS:
        help_[s] = []
    where = "description"
    for line in lines:
        if line.startswith("Usage: "):
            help_["usage"] = line[len("Usage: "):].strip()
            where = "after-usage"
        elif line in SECTIONS:
            where = line
        elif where == "description":
            if line.strip():
                help_["description"].append(line.strip())
        elif where in SECTIONS:
            entries = help_[where]
            if not line.strip():
                where = "after-section"
            elif line.startswith(" " * DESC_COLUMN) and entries:
                spec, desc = entries[-1]
                entries[-1] = (spec, (desc + " " + line.strip()).strip())
            elif line.startswith("  ") and line[2] != " ":
                if len(line) > DESC_COLUMN and line[DESC_COLUMN - 1] == " " and \
                        line[:DESC_COLUMN].strip():
                    entries.append((line[:DESC_COLUMN].strip(), line[DESC_COLUMN:].strip()))
                else:
                    entries.append((line.strip(), ""))
            else:
                raise ValueError("cannot read this --help line: %r" % line)
        elif line.strip():  # after the sections: the footer
            help_["footer"].append(line.strip())
    if not help_["usage"]:
        raise ValueError("no `Usage:` line in this --help text")
    return help_


def option_tag(spec):
    """`-h,--help` / `--in TEXT ... REQUIRED`: the names bold, the rest roman."""
    name, _, rest = spec.partition(" ")
    names = ",".join("\\fB%s\\fR" % escape(n) for n in name.split(","))
    return names + (" " + escape(rest) if rest else "")


def positional_tag(spec):
    name, _, rest = spec.partition(" ")
    return "\\fI%s\\fR" % escape(name) + (" " + escape(rest) if rest else "")


def required_words(help_):
    """The options marked REQUIRED, as `--in TEXT ...` for the synopsis."""
    out = []
    for spec, _ in help_["Options:"]:
        words = spec.split()
        if "REQUIRED" in words:
            out.append(" ".join(words[:words.index("REQUIRED")]))
    return out


def paragraphs(lines):
    out = []
    for i, text in enumerate(lines):
        if i:
            out.append(".PP")
        out.append(escape(text))
    return out


def entries(help_, skip_help):
    out = []
    for spec, desc in help_["Positionals:"]:
        out += [".TP", positional_tag(spec), escape(desc)]
    for spec, desc in help_["Options:"]:
        if skip_help and spec.split(" ")[0] == "-h,--help":
            continue
        out += [".TP", option_tag(spec), escape(desc)]
    return out


def synopsis_line(help_):
    usage = help_["usage"].split()
    # CLI11 writes the program and subcommand words, then [OPTIONS] and the rest.
    k = usage.index("[OPTIONS]") if "[OPTIONS]" in usage else len(usage)
    words, rest = usage[:k], usage[k:]
    line = "\\fB%s\\fR" % escape(" ".join(words))
    tail = [escape(w) for w in rest[:1]]
    tail += ["\\fB%s\\fR" % escape(w) if w.startswith("-") else "\\fI%s\\fR" % escape(w)
             for r in required_words(help_) for w in r.split()]
    tail += ["\\fI%s\\fR" % escape(w) for w in rest[1:]]
    return " ".join([line] + tail)


def split_summary(name, description):
    """The NAME line and the rest, from the help's description: its first
    sentence, without a leading `NAME: `."""
    if not description:
        raise ValueError("%s --help has no description line" % name)
    first = description[0]
    if first.startswith(name + ": "):
        first = first[len(name) + 2:]
    head, dot, rest = first.partition(". ")
    return head.rstrip("."), ([rest] if rest else []) + description[1:]


def man_page(name, helps, description=(), exit_status=(), environment=(), see_also=()):
    """The page. helps: [(words, --help text)], the program's first ([], ...);
    description: paragraphs after the help's own; exit_status, environment:
    [(tag, text)]; see_also: [(page, section)], section "" for a plain note."""
    parsed = [(words, parse_help(text)) for words, text in helps]
    top = parsed[0][1]
    summary, own = split_summary(name, top["description"])
    # No hyphenation and a ragged right edge: option names and paths stay whole.
    out = ['.\\" Generated by tools/gen-docs from %s --help; do not edit.' % name,
           '.TH %s 1 "" "rocelb" "User Commands"' % escape(name.upper()), ".nh", ".ad l",
           ".SH NAME", "%s \\- %s" % (escape(name), escape(summary)),
           ".SH SYNOPSIS"]
    for i, (words, h) in enumerate(parsed):
        if i:
            out.append(".br")
        out.append(synopsis_line(h))
    out += [".SH DESCRIPTION"] + paragraphs(own + list(description) + top["footer"])
    out += [".SH OPTIONS"] + entries(top, skip_help=False)
    subs = parsed[1:]
    if subs:
        out.append(".SH COMMANDS")
        for words, h in subs:
            out += [".SS %s" % escape(" ".join([name] + words)), synopsis_line(h), ".PP"]
            out += paragraphs(h["description"] + h["footer"])
            out += entries(h, skip_help=True)
    if exit_status:
        out.append(".SH EXIT STATUS")
        for tag, text in exit_status:
            out += [".TP", "\\fB%s\\fR" % escape(tag), escape(text)]
    if environment:
        out.append(".SH ENVIRONMENT")
        for tag, text in environment:
            out += [".TP", "\\fB%s\\fR" % escape(tag), escape(text)]
    if see_also:
        out += [".SH SEE ALSO",
                ",\n".join("\\fB%s\\fR(%s)" % (escape(p), s) if s else escape(p)
                           for p, s in see_also)]
    return "\n".join(out) + "\n"
