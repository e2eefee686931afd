#!/usr/bin/env python3
"""The series as features: mark the final tree's lines, write any state.

The series' final tree is the source; kernel/split/specs/ says which of
its lines each feature adds (one spec per file, Python calling a Marker:
see class Marker), kernel/split/features lists the features in patch
order. A marked file is the final file with blocks of lines for a
feature:  '@{ expr' ... ['@|' else lines] '@}', expr a boolean over
feature names (!, &, |); '@@file expr' first says when the file exists.
The state after the first K features keeps what their expressions allow.

  split.py mark FINAL BASE OUT      mark the final files (BASE: the tree
                                    the series applies to, for hunks())
  split.py state MARKED DEST K      write the state after K features
  split.py features                 the feature names, in order
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def features():
    with open(os.path.join(HERE, 'features')) as fh:
        return [l.split()[0] for l in fh if l.strip() and not l.startswith('#')]


KNOWN = set(features())


def evaluate(expr, on, where):
    """Whether expr holds with the features in on."""
    names = set(re.findall(r'[A-Za-z_][A-Za-z0-9_]*', expr)) - {'and', 'or', 'not'}
    env = {n: (n in on) for n in names}
    unknown = [n for n in names if n not in KNOWN]
    if unknown:
        sys.exit(f'{where}: unknown feature {unknown}')
    return eval(expr.replace('!', ' not ').replace('&', ' and ').replace('|', ' or '), {}, env)


def strip(path, on):
    out, stack = [], []   # stack of (kept-now, taken-branch)
    lines = open(path).read().split('\n')
    if lines and lines[0].startswith('@@file '):
        if not evaluate(lines[0][7:], on, f'{path}:1'):
            return None
        lines = lines[1:]
    for no, line in enumerate(lines, 1):
        s = line.strip()
        where = f'{path}:{no}'
        if s.startswith('@{ '):
            cond = evaluate(s[3:], on, where)
            outer = all(k for k, _ in stack)
            stack.append((outer and cond, cond))
        elif s == '@|':
            if not stack:
                sys.exit(f'{where}: @| outside a block')
            _, cond = stack.pop()
            outer = all(k for k, _ in stack)
            stack.append((outer and not cond, True))
        elif s == '@}':
            if not stack:
                sys.exit(f'{where}: @}} outside a block')
            stack.pop()
        elif s.startswith('@'):
            sys.exit(f'{where}: unknown marker {s}')
        elif all(k for k, _ in stack):
            out.append(line)
    if stack:
        sys.exit(f'{path}: {len(stack)} block(s) left open')
    if '/svc_fair' in path and path.endswith(('.c', '.h')):
        # a block taken out leaves the blank lines on both sides of it
        out = [l for i, l in enumerate(out) if not (l == '' and i and out[i - 1] == '')]
    return '\n'.join(out)


class Marker:
    def __init__(self, final_root, base_root, path):
        self.path = path
        self.lines = open(os.path.join(final_root, path)).read().split('\n')
        self.opens = {}    # index -> list of (end, expr)
        self.closes = {}   # index -> list of (start, alt)
        self.first = None
        self.empties = {}
        self.base = base_root

    def find(self, text, start=0, nth=1):
        hits = [i for i, l in enumerate(self.lines) if text in l and i >= start]
        if len(hits) < nth:
            sys.exit(f'{self.path}: no line has {text!r}')
        if nth == 1 and len(hits) > 1 and start == 0:
            sys.exit(f'{self.path}: {len(hits)} lines have {text!r}: be more precise')
        return hits[nth - 1]

    def has(self, text):
        return any(text in l for l in self.lines)

    def close(self, i):
        """The first line after i that is a '}' at column 0."""
        while self.lines[i] != '}':
            i += 1
        return i

    def _add(self, a, b, expr, alt=None):
        self.opens.setdefault(a, []).append((b, expr))
        self.closes.setdefault(b, []).append((a, alt))

    def line(self, text, expr, n=1, alt=None, nth=1):
        """The line with text, and the n-1 after it; alt: else lines."""
        a = self.find(text, nth=nth) if nth > 1 else self.find(text)
        self._add(a, a + n - 1, expr, alt)

    def lines_in(self, texts, expr):
        for t in texts:
            self.line(t, expr)

    def span(self, start, end, expr, alt=None, after=None):
        a = self.find(start, self.find(after) if after else 0, 1)
        b = self.find(end, a)
        # a start inside a comment takes the whole comment
        if self.lines[a].startswith(' *') and self.lines[a - 1].strip() in ('/*', '/**'):
            a -= 1
        # a closing brace takes the blank line after it
        if self.lines[b] in ('}', '};') and b + 1 < len(self.lines) and self.lines[b + 1] == '':
            b += 1
        self._add(a, b, expr, alt)

    def comment_above(self, a):
        # include a comment block that ends just above line a
        if a > 0 and self.lines[a - 1].strip().endswith('*/'):
            i = a - 1
            while not self.lines[i].lstrip().startswith('/*'):
                i -= 1
            return i
        return a

    def block(self, text, expr, alt=None, trailing_blank=True, after=None):
        """A top-level definition (function, struct, static_assert list):
        its comment above, through the '}' or ');' at column 0, and the
        blank line after."""
        a = self.find(text, self.find(after) if after else 0) if after else self.find(text)
        # back to the start of a multi-line signature
        while a > 0 and self.lines[a - 1] and not self.lines[a - 1].startswith(('}', '/*', ' */', '#')) \
                and not self.lines[a - 1].strip().endswith(('*/', ';', '}')):
            a -= 1
        a = self.comment_above(a)
        b = a
        while not (self.lines[b].startswith('}') or (self.lines[b].endswith(';') and not self.lines[b].startswith((' ', '\t')) and b > a and self.lines[b].startswith(('}', 'EXPORT', 'static_assert', 'DEFINE')))):
            b += 1
        if b + 1 < len(self.lines) and self.lines[b + 1].startswith('EXPORT_SYMBOL'):
            b += 1
        if trailing_blank and b + 1 < len(self.lines) and self.lines[b + 1] == '':
            b += 1
        self._add(a, b, expr, alt)

    def empty(self, at, expr, alt):
        """Nothing in the final file at index at; alt before it otherwise."""
        self.empties.setdefault(at, []).append((expr, alt))

    def hunks(self, default, overrides=()):
        """Mark every change from the base file (base/ beside final/) as
        default, or as the expr of the first (text, expr) in overrides
        whose text is in the hunk's new or old lines."""
        import difflib
        base = open(os.path.join(self.base, self.path)).read().split('\n')
        sm = difflib.SequenceMatcher(None, base, self.lines, autojunk=False)
        for op, i1, i2, j1, j2 in sm.get_opcodes():
            if op == 'equal':
                continue
            text = '\n'.join(base[i1:i2] + self.lines[j1:j2])
            expr = default
            for t, e in overrides:
                if t in text:
                    expr = e
                    break
            alt = base[i1:i2]
            if j1 == j2:
                self.empty(j1, expr, alt)
            else:
                self._add(j1, j2 - 1, expr, alt if alt else None)

    def whole(self, expr):
        self.first = expr

    def write(self, out_root):
        out = []
        if self.first:
            out.append('@@file ' + self.first)
        for n, line in enumerate(self.lines):
            for expr, alt in self.empties.get(n, []):
                out.append('@{ ' + expr)
                out.append('@|')
                out.extend(alt)
                out.append('@}')
            for b, expr in sorted(self.opens.get(n, []), key=lambda x: -x[0]):
                out.append('@{ ' + expr)
            out.append(line)
            closes = list(enumerate(self.closes.get(n, [])))
            for _, (a, alt) in sorted(closes, key=lambda x: (-x[1][0], -x[0])):
                if alt is not None:
                    out.append('@|')
                    out.extend(alt if isinstance(alt, list) else alt.split('\n'))
                out.append('@}')
        dst = os.path.join(out_root, self.path)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        open(dst, 'w').write('\n'.join(out))


GENERATED = ('nl_gen.c', 'nl_gen.h', 'nfsfair_netlink.h')   # from the spec, per state


def walk(root):
    for d, _, files in os.walk(root):
        for f in files:
            yield os.path.relpath(os.path.join(d, f), root)


def cmd_mark(final, base, out):
    for rel in sorted(walk(final)):
        if rel.endswith(GENERATED):
            continue
        m = Marker(final, base, rel)
        spec = os.path.join(HERE, 'specs', rel.replace('/', '__') + '.py')
        if os.path.exists(spec):
            with open(spec) as fh:
                exec(fh.read(), {'m': m})
        m.write(out)


def cmd_state(marked, dest, k):
    on = set(features()[:k])
    for rel in walk(marked):
        text = strip(os.path.join(marked, rel), on)
        dst = os.path.join(dest, rel)
        if text is None:
            if os.path.exists(dst):
                os.remove(dst)
            continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, 'w') as fh:
            fh.write(text)


if __name__ == '__main__':
    cmd = sys.argv[1:2]
    if cmd == ['mark'] and len(sys.argv) == 5:
        cmd_mark(*sys.argv[2:5])
    elif cmd == ['state'] and len(sys.argv) == 5:
        cmd_state(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif cmd == ['features']:
        print('\n'.join(features()))
    else:
        sys.exit(__doc__)
