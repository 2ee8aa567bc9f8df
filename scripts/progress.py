"""A progress line for long runs (the regressions, the ALU oracle): done/total, the fraction, the
rate measured over this run and the time left at that rate. Work a resumed run found already done
counts as done but not into the rate.

    p = Progress("regress-alu", total=1000, unit="flits", already=200)
    p.add(50)           # after each finished piece of work
    print(p.line())     # regress-alu: 250/1,000 flits (25.0%), 12.3 flits/s, 4 s elapsed, ETA 61 s
"""
import time


def duration(seconds):
    """Seconds as '42 s', '17 min' or '2 h 05 min'."""
    s = int(round(seconds))
    if s < 120:
        return f"{s} s"
    if s < 7200:
        return f"{s // 60} min"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


def rate_text(per_second, unit):
    """A rate with an SI prefix: 1.23 Mflits/s."""
    for scale, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if per_second >= scale:
            return f"{per_second / scale:.2f} {prefix}{unit}/s"
    return f"{per_second:.2f} {unit}/s"


class Progress:
    def __init__(self, name, total, unit, already=0, clock=time.monotonic):
        self.name, self.total, self.unit = name, total, unit
        self.already, self.done_here = already, 0
        self.clock = clock
        self.t0 = clock()

    @property
    def done(self):
        return self.already + self.done_here

    def add(self, n):
        self.done_here += n

    def elapsed(self):
        return self.clock() - self.t0

    def line(self, extra=""):
        el = self.elapsed()
        frac = self.done / self.total if self.total else 1.0
        text = f"{self.name}: {self.done:,}/{self.total:,} {self.unit} ({100 * frac:.1f}%)"
        if self.done_here and el > 0:
            rate = self.done_here / el
            left = (self.total - self.done) / rate
            text += f", {rate_text(rate, self.unit)}, {duration(el)} elapsed, ETA {duration(left)}"
        else:
            text += f", {duration(el)} elapsed, ETA unknown"
        return text + (f", {extra}" if extra else "")
