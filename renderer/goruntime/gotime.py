"""`metav1.Time` as Go reads and writes it: time.Parse(time.RFC3339, s), then UTC whole seconds.

Go's time.Parse with the RFC3339 layout is more lenient than RFC 3339 itself (its general
layout parser runs when the strict fast path fails), and a digest depends on exactly which
texts it accepts, so its rules are restated here:

- `YYYY-MM-DD` with exactly four, two and two digits; month 1-12, day valid for the month.
- a literal upper-case `T`; the hour has one or two digits (0-23); minute and second two
  digits each (0-59; no leap second).
- an optional fraction: `.` or `,` followed by one or more digits (any number; only the
  first nine count).
- `Z`, or `+hh:mm` / `-hh:mm` with two-digit fields, hours up to 24 and minutes up to 60.
- nothing after that.

MarshalJSON writes JSON null for the zero time (0001-01-01T00:00:00Z exactly, fraction
included), else `t.UTC()` formatted as RFC 3339 without the fraction (truncated, not
rounded). The year is written as Go's appendInt does: `-0001` and `10000` are possible
when an offset moves a 0000 or 9999 date across the year boundary.
"""

from __future__ import annotations

ZERO_TIME_TEXT = "null"
_DAYS_IN_MONTH = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
# Seconds from 0000-03-01 based day count (days_from_civil) to 0001-01-01T00:00:00Z.
_SECONDS_PER_DAY = 86400


class TimeFormatError(ValueError):
    """A text Go's time.Parse(time.RFC3339, ...) rejects, or one we cannot re-emit exactly."""


def _is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _days_in(month: int, year: int) -> int:
    if month == 2 and _is_leap(year):
        return 29
    return _DAYS_IN_MONTH[month - 1]


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 in the proleptic Gregorian calendar (any year)."""
    year -= month <= 2
    era = year // 400  # Python's floor division: no adjustment for negative years
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _civil_from_days(days: int) -> tuple[int, int, int]:
    days += 719468
    era = days // 146097  # floor division, also before 0000-03-01
    doe = days - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    year = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + (3 if mp < 10 else -9)
    return year + (month <= 2), month, day


_ZERO_UNIX = _days_from_civil(1, 1, 1) * _SECONDS_PER_DAY


def _digits(text: str, start: int, count: int) -> int | None:
    chunk = text[start : start + count]
    if len(chunk) != count or not (chunk.isascii() and chunk.isdigit()):
        return None
    return int(chunk)


def _bad(text: str, why: str) -> TimeFormatError:
    return TimeFormatError(f"timestamp {text!r} is not RFC 3339 as Go parses it: {why}")


def parse_go_rfc3339(text: str) -> tuple[int, int]:
    """(Unix seconds, nanoseconds) of `text`, or TimeFormatError where Go's parser fails."""
    year = _digits(text, 0, 4)
    if year is None:
        raise _bad(text, "expected a four-digit year")
    if text[4:5] != "-":
        raise _bad(text, "expected '-' after the year")
    month = _digits(text, 5, 2)
    if month is None:
        raise _bad(text, "expected a two-digit month")
    if text[7:8] != "-":
        raise _bad(text, "expected '-' after the month")
    day = _digits(text, 8, 2)
    if day is None:
        raise _bad(text, "expected a two-digit day")
    if text[10:11] != "T":
        raise _bad(text, "expected 'T' after the date")
    pos = 11
    if pos < len(text) and text[pos].isascii() and text[pos].isdigit():
        if pos + 1 < len(text) and text[pos + 1].isascii() and text[pos + 1].isdigit():
            hour = int(text[pos : pos + 2])
            pos += 2
        else:  # Go's hour field takes one or two digits
            hour = int(text[pos])
            pos += 1
    else:
        raise _bad(text, "expected the hour")
    if text[pos : pos + 1] != ":":
        raise _bad(text, "expected ':' after the hour")
    minute = _digits(text, pos + 1, 2)
    if minute is None:
        raise _bad(text, "expected two-digit minutes")
    if text[pos + 3 : pos + 4] != ":":
        raise _bad(text, "expected ':' after the minutes")
    second = _digits(text, pos + 4, 2)
    if second is None:
        raise _bad(text, "expected two-digit seconds")
    pos += 6
    nanos = 0
    if (
        pos + 1 < len(text)
        and text[pos] in ".,"
        and text[pos + 1].isascii()
        and text[pos + 1].isdigit()
    ):
        end = pos + 1
        while end < len(text) and text[end].isascii() and text[end].isdigit():
            end += 1
        fraction = text[pos + 1 : end][:9]
        nanos = int(fraction.ljust(9, "0"))
        pos = end
    rest = text[pos:]
    if rest.startswith("Z"):
        offset = 0
        rest = rest[1:]
    else:
        if len(rest) < 6 or rest[3] != ":":
            raise _bad(text, "expected 'Z' or a ±hh:mm offset")
        off_hours = _digits(rest, 1, 2)
        off_minutes = _digits(rest, 4, 2)
        if off_hours is None or off_minutes is None:
            raise _bad(text, "expected a ±hh:mm offset")
        if rest[0] not in "+-":
            raise _bad(text, "expected '+' or '-' before the offset")
        if off_hours > 24 or off_minutes > 60:
            raise _bad(text, "offset out of range")
        offset = (off_hours * 60 + off_minutes) * 60 * (-1 if rest[0] == "-" else 1)
        rest = rest[6:]
    if rest:
        raise _bad(text, f"extra text {rest!r}")
    if not 1 <= month <= 12:
        raise _bad(text, "month out of range")
    if hour > 23:
        raise _bad(text, "hour out of range")
    if minute > 59:
        raise _bad(text, "minute out of range")
    if second > 59:
        raise _bad(text, "second out of range")
    if not 1 <= day <= _days_in(month, year):
        raise _bad(text, "day out of range")
    local = _days_from_civil(year, month, day) * _SECONDS_PER_DAY + hour * 3600 + minute * 60
    return local + second - offset, nanos


def marshal_time(text: str) -> str:
    """The JSON text metav1.Time.MarshalJSON writes for a value decoded from `text`."""
    seconds, nanos = parse_go_rfc3339(text)
    if seconds == _ZERO_UNIX and nanos == 0:
        return ZERO_TIME_TEXT
    days, rem = divmod(seconds, _SECONDS_PER_DAY)
    year, month, day = _civil_from_days(days)
    hour, rem = divmod(rem, 3600)
    minute, second = divmod(rem, 60)
    return f'"{_go_year(year)}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}Z"'


def _go_year(year: int) -> str:
    """Go's appendInt(b, year, 4): a '-' then at least four digits (-0001, 0000, 10000).

    Parsed years are 0000-9999 and offsets stay within a day, so in UTC the year is
    -1 to 10000: 0000-01-01T00:00:00+01:00 is written -0001-12-31T23:00:00Z.
    """
    return f"-{-year:04d}" if year < 0 else f"{year:04d}"
