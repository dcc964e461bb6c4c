"""Hand-written hostile values, shared by every test that throws them at the app."""

NASTIES = [
    float("nan"),
    float("inf"),
    -float("inf"),
    1e308,
    -1e308,
    1e12,
    -1e12,
    0,
    -1,
    10**30,
    "",
    "abc",
    "1e999",
    "<script>alert('x')</script>",
    "<img src=x onerror=alert(1)>",
    "' OR 1=1 --",
    [1, 2, 3],
    [[[[]]]],
    {"nested": {"deep": [None]}},
    None,
    True,
    False,
    "∞",
    "NaN",
    "\u0000",
    "x" * 10_000,
]

#: one of each family, sent to every single input in turn (the full list goes to all at once)
REPRESENTATIVES = [
    float("nan"),
    -float("inf"),
    1e308,
    "<script>alert('x')</script>",
    [1, 2, 3],
    {"nested": {"deep": [None]}},
    None,
    "x" * 10_000,
]
