"""jq: generated filters (paths, arithmetic, strings, construction, reduce/foreach,
builtins, errors caught and uncaught) over generated JSON (numbers of every shape: big
integers, 1e1000, -0, literals like 1.10 and 1E2; unicode and escapes; deep nesting),
with the options people use, compared with jq 1.7.1."""
import json
import shlex


NUMS = ["0", "-0", "1", "-1", "2", "3", "10", "1.5", "-2.25", "0.1", "1.10", "1E2", "1e2",
        "100000000000000000000", "9007199254740993", "-9007199254740993", "1e1000",
        "-1e1000", "1e-7", "0.00001", "123456789012", "3.14159265358979323846", "1.0",
        "0.30000000000000004", "5e-324", "1.7976931348623157e308", "12.5e1", "00012"]
STRS = ['""', '"a"', '"abc"', '"Hello, World"', '"a,b,c"', '"  pad "', '"\\u00e9t\\u00e9"',
        '"\\ud83d\\ude00x"', '"tab\\there"', '"new\\nline"', '"quote\\"s"', '"back\\\\slash"',
        '"\\u0000nul"', '"\\u007f"', '"2015-03-05T23:51:47Z"', '"1"', '"-1.5"', '"abcabc"',
        '"ABC def"', '"x y z"', '"<&>"', '"key"', '"\\u2028"']
KEYS = ["a", "b", "c", "key", "x", "é", "a b", ""]


def rand_scalar(rng):
    r = rng.random()
    if r < 0.4:
        return rng.choice(NUMS)
    if r < 0.75:
        return rng.choice(STRS)
    return rng.choice(["null", "true", "false"])


def rand_json(rng, depth=0):
    r = rng.random()
    if depth > 3 or r < 0.35:
        return rand_scalar(rng)
    if r < 0.65:
        n = rng.randint(0, 4)
        return "[" + ",".join(rand_json(rng, depth + 1) for _ in range(n)) + "]"
    n = rng.randint(0, 4)
    keys = [rng.choice(KEYS) for _ in range(n)]
    return "{" + ",".join(json.dumps(k) + ":" + rand_json(rng, depth + 1) for k in keys) + "}"


OBJ = '{"a":1,"b":[1,2,{"c":"x"}],"c":{"d":null,"e":[true,false]},"name":"n","n":-2.5}'
ARR = '[3,1,2,"a",null,[1],{"k":1},1.5,-0,true]'
NUMARR = '[5,3,8,1,9,2,7,1.5,-4,100000000000000000000]'
STRARR = '["b","a","abc","","é","B","a1"]'
OBJS = '[{"id":1,"name":"x","v":3},{"id":2,"name":"y","v":1},{"id":3,"name":"x","v":2}]'

FILTERS = [
    # paths and indexing
    ".", ".a", ".b", ".b[0]", ".b[-1]", ".b[1:]", ".b[:2]", ".b[-2:]", ".c.d", ".c.e[0]",
    ".[]", ".[]?", "..", "[..]", "[paths]", "[paths(type == \"number\")]", "[leaf_paths?]",
    ".a?", ".[0]?", "try .a catch .", "try .[0] catch .", "try .[] catch .",
    "[.[] | type]", "keys?", "keys_unsorted?", "try keys catch .", "length?",
    "try length catch .", "to_entries?", "[.. | numbers]", "[.. | strings]",
    "path(..)", "[path(.. | select(type == \"string\"))]", "getpath([\"a\"])?",
    "getpath([\"b\",2,\"c\"])?", "try getpath([\"a\",0]) catch .", "[getpath([\"x\"],[\"a\"])?]",
    "del(.a)?", "del(.[0])?", "try del(.b[0]) catch .", "delpaths([[\"a\"],[\"b\",0]])?",
    "to_entries? | from_entries", "with_entries(.value |= tostring)?", "setpath([\"z\"]; 1)?",
    "try setpath([0]; 1) catch .", ".[1:3]?", ".[\"a\"]?", "has(\"a\")?", "try has(0) catch .",
    "[.[]?] | length", "first(.[]?)", "[limit(2; .[]?)]", "[.[]?] | last", "tostream",
    "[tostream] | fromstream(.[])", "pick(.a)?", "try pick(.b[1]) catch .",
    # arithmetic and numbers
    ". + 1?", "try (. + 1) catch .", "try (. * 2) catch .", "try (. - 1) catch .",
    "try (. / 2) catch .", "try (. % 3) catch .", "try -. catch .", "[.[]? | numbers | . * 3]",
    "[.[]? | numbers] | add", "[.[]? | numbers] | sort", "[.[]? | numbers] | min, max",
    "try (1 / 0) catch .", "try (0 % 0) catch .", "[1,2,3] | add / length", "1e1000",
    "-1e1000", "[1e1000, -1e1000, nan, -0, 0.1+0.2]", "100000000000000000000",
    "100000000000000000000 + 1", "9007199254740993", "[9007199254740993] | .[0]",
    "1.10, 1.10 + 0, 1E2, -1.10", "[.[]? | numbers | floor]", "[.[]? | numbers | sqrt]",
    "[.[]? | numbers | tostring]", "[.[]? | numbers | tojson]", "infinite, -infinite, nan",
    "[nan] | sort", "nan < 1, nan > 1", "[1, 1.0, 1.10] | unique", "13911860366432393 == 13911860366432392",
    "[range(5)]", "[range(2; 10; 3)]", "[range(5; 0; -2)]", "[range(0; 1; 0.3)]",
    "pow(2; 10), log10(1000), (1000 | log10)", "[.[]? | numbers | round]",
    "[3.7, -3.7] | map(floor, ceil, round, fabs, trunc)", "1 / 3", "2 / 3 * 3", "1e300 * 1e10",
    "[5 % 3, -5 % 3, 5 % -3, 5.9 % 2.1]", "[.[]? | numbers | significand?]",
    "[1,2] | .[1.7]", "[0,1,2,3,4] | .[1.2:3.7]", "1 as $x | [$x, -$x]",
    # strings
    "tostring", "tojson", "tojson | fromjson", "try ascii_downcase catch .",
    "try ascii_upcase catch .", "try explode catch .", "try (explode | implode) catch .",
    "try ltrimstr(\"a\") catch .", "try rtrimstr(\"c\") catch .", "try startswith(\"a\") catch .",
    "try endswith(\"c\") catch .", "try split(\",\") catch .", "try (. / \",\") catch .",
    "try test(\"a\") catch .", "try test(\"A\"; \"i\") catch .", "try [match(\"[a-c]\"; \"g\")] catch .",
    "try [scan(\"[a-z]+\")] catch .", "try sub(\"a\"; \"X\") catch .", "try gsub(\"[aeiou]\"; \"_\") catch .",
    "try capture(\"(?<first>.)\") catch .", "try [splits(\", *\")] catch .", "try utf8bytelength catch .",
    "try (. * 3) catch .", "try @base64 catch .", "try (@base64 | @base64d) catch .", "try @uri catch .",
    "try @html catch .", "try @sh catch .", "try @json catch .", "try @text catch .",
    "try @csv catch .", "try @tsv catch .", "try indices(\"a\") catch .", "try index(\"b\") catch .",
    "try rindex(\"b\") catch .", "try tonumber catch .", "\"x\\(.)y\"", "@json \"v: \\(.)\"",
    "try (.[2:] | length) catch .", "try ascii catch .", "[.[]? | strings] | join(\"-\")",
    "[.[]? | strings] | sort", "try (\"abc\" | .[1:]) catch .", "\"\\u00e9\" | length, utf8bytelength",
    "try (. | @base32) catch .", "try fromjson catch .", "try (\"[1,2\" | fromjson) catch .",
    # construction
    "{a: .a?, b: 1}", "{(.name? // \"k\" | tostring): 1}", "[.[]?, 1]", "{a: (1,2), b: (3,4)}",
    "[(1,2) + (10,20)]", "\"\\(1,2)-\\(3,4)\"", "{x: .}", "[{a:1} * {a:{b:2}}]", "{} + {a:1}",
    "{\"a\":1} * {\"a\":{\"b\":2}} * {\"a\":{\"c\":3}}", "[.[]?] | reverse", "try reverse catch .",
    "{$__loc__}", "$__loc__", "[1,[2,[3,[4]]]] | flatten, flatten(1)", "try flatten(-1) catch .",
    "[[1,2],[3,4]] | transpose", "[[1,2],[3]] | combinations", "[1,2] | [combinations(2)]",
    "{a:1} | has(\"a\"), has(\"b\")", "[1,[2]] | contains([[2]])", "\"foobar\" | contains(\"bar\")",
    "try contains(1) catch .", "[1,2] | inside([1,2,3])", "{} | .a.b.c = 1", ".a.b |= . + 1",
    "try (.[0] = 1) catch .", "[1,2,3] | .[1:] = [9]", "[1,2,3] | del(.[0,2])",
    "[1,2,3] | to_entries", "{\"b\":2,\"a\":1} | keys, keys_unsorted", "[3,1,2] | sort_by(-.)",
    # reduce / foreach / control
    "reduce .[]? as $x (0; . + 1)", "reduce range(5) as $i ([]; . + [$i * 2])",
    "[foreach range(5) as $i (0; . + $i)]", "[foreach range(5) as $i (0; . + $i; [$i, .])]",
    "reduce range(3) as $x (0; .+1, .+10)", "reduce empty as $x (5; .+1)",
    "[foreach range(4) as $x (0; if $x == 1 then empty else . + 1 end)]",
    "[limit(3; repeat(1))]", "[limit(0; 1, 2)]", "[limit(-1; 1, 2)]", "first(range(10; 0; -1))",
    "[.[]? | select(type == \"number\")]", "[.[]? | values]", "isempty(empty), isempty(1)",
    "[until(. > 100; . * 2 + 1)]?", "[0 | while(. < 5; . + 1)]", "[recurse(if . < 3 then . + 1 else empty end)]?",
    "label $out | 1, 2, break $out, 3", "[.[]? | (if type == \"number\" then . else empty end)]",
    "if . then \"t\" elif . == false then \"f\" else \"n\" end", "if . == null then 1 end",
    "try error catch .", "try error(\"x\") catch .", "try error({a:1}) catch .", "try error(null) catch .",
    "(1, error(\"x\"), 2)?", "[.[]? | try (if . == 1 then error(\"one\") else . end) catch \"c\"]",
    ". as [$a, $b] | [$a, $b]", ". as {a: $a} ?// [$a] | $a", "[.[]? as [$a] ?// $a | $a]",
    ". as {$a, b: [$c]} | [$a, $c]", "def f: . + 1; def g(x): x * 2; [1 | f, g(3)]",
    "def f(n): if n > 0 then n, f(n - 1) else empty end; [f(3)]", "[.. | scalars] | length",
    "[1, null, \"a\"] | map(. // \"d\")", "(null, false, 1) // 2", "[empty // 3]",
    "any, all", "[1,2] | any(. > 1), all(. > 1)", "[] | any, all", "IN(1, 2)", "[1,2] | IN(.[]; 2, 3)",
    "INDEX(.id)?", "[splits(\"a\")]?", "input_line_number", "$ENV | type", "env | type",
    "ltrimstr(1)", "[1,2] | join(\",\")", "[\"a\", 1, null, true] | join(\"-\")",
    "try ([[1]] | join(\",\")) catch .", "getpath([\"a\",0,\"b\"])?", "@text \"\\(.)!\"",
    "tojson | length", "[.[]? | tostring | length]", "splits(\", \")?", "ascii_downcase?",
    "[.[]? | objects]", "[.[]? | arrays]", "[.[]? | booleans]", "[.[]? | nulls]", "[.[]? | iterables]",
    "map_values(. // 0)?", "walk(if type == \"number\" then . + 1 else . end)",
    "[paths(..)]", "(.. | numbers) |= . * 2", "(.[]? | select(. == null)) |= 0",
    "to_entries? | map(select(.value != null)) | from_entries", "group_by(type)?",
    "unique_by(type)?", "min_by(.)?, max_by(.)?", "[.[]? | type] | unique",
    "bsearch(1)?", "[.[]?] | implode?", "try ([65, 66] | implode) catch .", "[65.9, 0x] | implode?",
    "splits(\"x\"; \"g\")?", "@sh \"echo \\(.)\"", "[.[]? | @sh]?", "gmtime?", "todate?",
    "try (1425599621 | todate) catch .", "\"2015-03-05T23:51:47Z\" | fromdate",
    "1425599621 | gmtime | mktime", "1425599621 | strftime(\"%A %B %d %Y %j %H:%M:%S %Z\")",
    "try (1e18 | gmtime) catch .", "try (1e300 | strftime(\"%Y\")) catch .", "-1.5 | gmtime",
    "67767976233532799 | gmtime", "[1e18,0,1,0,0,0,0,0] | mktime, todate, strftime(\"%c\")",
    "[2024,1e12,1,0,0,1e12,0,0] | mktime", "[nan,0,1,0,0,-1.5,0,0] | mktime, strftime(\"%Y %S\")",
    "-1, -2, -3 | try (gmtime | mktime) catch .", "try (\"1969-12-31T23:59:59Z\" | fromdate) catch .",
    "[.[]? | isnan, isinfinite, isnormal, isfinite]", "[.[]? | finites, normals]",
    "try .[1:\"x\"] catch .", "try (.[[]:] = 1) catch .",
    "\"10:15 2020-01-02\" | strptime(\"%H:%M %Y-%m-%d\")", "now | type", "builtins | length",
    "[builtins | select(startswith(\"to\"))] | sort", "\"a\" * 0, \"a\" * -1, \"ab\" * 2.5",
    "tostring | ascii_downcase | explode | length", "splits", "foo", "$x", ".a[", "1 +", "}",
]

OPTIONS = [["-c"], ["-c"], ["-c"], ["-c"], [], ["-r"], ["-S", "-c"], ["-a", "-c"], ["--tab"],
           ["--indent", "3"], ["--indent", "0"], ["-j"], ["-e", "-c"], ["-cr"], ["-C", "-c"],
           ["--seq", "-nc"], ["--indent", "7"], ["-a"], ["-S"], ["-r", "-a"]]


def case(rng, filt, stdin, opts):
    args = ["jq"] + opts + [filt]
    return {"tool": "jq", "script": " ".join(shlex.quote(a) for a in args),
            "stdin": stdin.encode()}


def cases(rng):
    fixed = [OBJ, ARR, NUMARR, STRARR, OBJS, "null", '"abc"', "42", "[]", "{}"]
    for filt in FILTERS:
        inputs = rng.sample(fixed, 3) + [rand_json(rng), rand_scalar(rng)]
        for stdin in inputs:
            yield case(rng, filt, stdin + "\n", rng.choice(OPTIONS[:5]))
    # printing: every option over random values
    for _ in range(300):
        opts = rng.choice(OPTIONS)
        stdin = "\n".join(rand_json(rng) for _ in range(rng.randint(1, 3))) + "\n"
        yield case(rng, rng.choice([".", ".[]?", "tojson", "..", "[.]", "keys?"]), stdin, opts)
    # numbers kept as written, and computed
    for n in NUMS:
        for f in [".", ". + 0", "-.", "[.]", "tostring", ". == 1", "{a: .}", ". * 1", "floor",
                  "[., 1] | sort", "tojson", "length"]:
            yield case(rng, f, n + "\n", ["-c"])
    # input handling: several values, raw, slurp, null input, bad JSON
    texts = ["1 2 3", "[1,2] [3]", '"a" "b"', "{\"a\":1}{\"a\":2}", "1\n\n2", "[1,\n2]",
             "", "   ", "nan", "NaN", "-nan", "infinity", "[1 2]", "{\"a\" 1}", "[1,]", "]",
             "\"abc", "tru", "01", ".5", "1.", "+1", "\ufeff[1]", "[1]]", "\"\\ud800\"",
             "{\"a\":1,\"a\":2}", "[" * 256 + "]" * 256, "[" * 257 + "]" * 257, "1e1000",
             "100000000000000000000", "\"\\u00e9\\n\\t\\\"\"", "\"a\tb\""]
    for t in texts:
        for opts, f in [(["-c"], "."), (["-c"], "[., input_line_number]"), (["-cs"], "."),
                        (["-cn"], "[inputs]"), (["-cR"], "."), (["-cRs"], "."),
                        (["-cn"], "input"), (["-c", "--stream"], "."), (["-e"], ".")]:
            yield case(rng, f, t + "\n", opts)
    # raw text and arguments that are not UTF-8: each bad sequence becomes U+FFFD as jq
    # counts them (a lead byte claims the bytes it announces)
    for raw in RAW_BYTES:
        for opts in [["-cR"], ["-cRs"], ["-cR", "--seq"]]:
            yield {"tool": "jq", "script": " ".join(["jq"] + opts + ["."]), "stdin": raw + b"\nx\n"}
        octal = "".join("\\%03o" % b for b in raw)
        yield {"tool": "jq", "script": f"jq -nc --arg x \"$(printf '{octal}')\" '$x, ($x | length)'",
               "stdin": b""}
        yield {"tool": "jq", "script": f"A=\"$(printf '{octal}')\" jq -nc 'env.A'", "stdin": b""}
    # arguments
    for opts, f in [(["-n", "--arg", "x", "1"], "$x"), (["-n", "--argjson", "x", "{\"a\":1}"], "$x.a"),
                    (["-n", "--arg", "x", "1"], "$ARGS"), (["-n", "--args"], "$ARGS"),
                    (["-nc", "--args", "a", "b"], "$ARGS.positional"),
                    (["-nc", "--jsonargs", "1", "{}"], "$ARGS"), (["-n", "--argjson", "x", "bad"], "$x"),
                    (["-n", "--indent", "9"], "1"), (["-n", "--foo"], "1"), (["-n"], "halt_error"),
                    (["-n"], "\"bye\\n\" | halt_error(1)"), (["-n"], "{} | halt_error(2)"),
                    (["-n"], "1, error(\"x\"), 2"), (["-ne"], "false"), (["-ne"], "empty"),
                    (["-ne"], "1"), (["-n", "--raw-output0"], "\"a\", \"b\""), (["-n"], "halt")]:
        yield case(rng, f, "", opts)
    # -n reads no input unless the program asks for it: the next command has stdin
    for f in ["1", "$ENV | type", "input", "[inputs]"]:
        c = case(rng, f, "1 2\n3\n", ["-nc"])
        c["script"] += "; cat"
        yield c
    # local time: TZ names a zone (also one with DST in the south, and a POSIX rule)
    moments = ["0", "-1.5", "1700000000.25", "1690000000", "1e10", "-1e10", "1e18"]
    for tz in ["Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Sydney",
               "America/St_Johns", "EST5EDT", "UTC", "CET-1CEST,M3.5.0,M10.5.0/3", "FOO3"]:
        for t in rng.sample(moments, 4):
            for f in ["localtime", "localtime | mktime", "strflocaltime(\"%c %Z %z %j\")",
                      "strftime(\"%Z\")", "try localtime catch .", "localtime | todate"]:
                c = case(rng, f"{t} | {f}", "", ["-nc"])
                c["script"] = f"TZ={shlex.quote(tz)} {c['script']}"
                yield c
    # regular expressions over long texts (many matches, multi-byte letters before them):
    # split/2, splits, scan with groups and match offsets
    words = ["a", "é", "ab", "x y", "<K>", "€", "a,b", "", "zz"]
    for _ in range(12):
        text = ",".join(rng.choice(words) for _ in range(rng.randint(200, 2000)))
        for f in ['split(", *"; null) | length', "[splits(\"<K>\")] | .[-3:]",
                  'split("(?<=é),"; "g") | .[:4]', '[scan("(a)(b)?")] | length, .[-1]',
                  '[match("€(.)"; "g") | .offset, .captures[0].offset] | .[-4:]',
                  '[scan("x (y)")] | length', 'split(","; "n") | length']:
            yield case(rng, f, json.dumps(text) + "\n", ["-c"])
    # arguments that yield more than one value: a builtin of jq's C code binds its last
    # argument outermost (and of two errors the last one's wins), a definition with `$`
    # parameters its first; and the constant null as a path expression
    gens = ["1,2", "(2,3)", "error(\"a\"), 1", "1, error(\"b\")", "empty", "0, -1"]
    for a in gens:
        for b in gens:
            for f in [f"[pow({a}; {b})]", f"[atan2({a}; {b})]", f"[fmin({a}; {b})]",
                      f"[range({a}; {b})]", f"[{{}} | setpath([\"a\"], [{a}]; {b})]",
                      f"[ldexp({a}; {b})]", f"[limit({a}; 5, 6, 7)]", f"[fma({a}; {b}; 1, 2)]"]:
                yield case(rng, f"try {f} catch .", "null\n", ["-c"])
    regexes = ['"a", "b"', '"(?<x>a)", "(?<x>.)"', '"A", error("r")', '"b"']
    modes = ['"g", null', 'null, "gi"', '"x", error("m")', 'null']
    for r in regexes:
        for m in modes:
            for f in [f"[test({r}; {m})]", f"[match({r}; {m}) | .string]",
                      f"[capture({r}; {m})]", f"[scan({r}; {m})]", f"[sub({r}; \"-\"; {m})]"]:
                yield case(rng, f"try {f} catch .", '"abA"\n', ["-c"])
    for stdin in ["null", "1", '{"a":null}', "[null]"]:
        for f in ["path(null)", "[paths(null)]", "path(.a | null)", "path(.[0] | null)",
                  "null |= 3", ".a |= null", "try path(1 | null) catch .", "[null, .] | .[0]",
                  "path(first(null, .a))", "del(null)", "to_entries? // null"]:
            yield case(rng, f"try ({f}) catch .", stdin + "\n", ["-c"])
    # negative literals (folded into constants when short) and tonumber of strings shaped
    # like integers (read without the JSON reader when short)
    for lit in ["1", "0", "00", "0001", "12", "999999999999999", "1000000000000000",
                "9223372036854775807", "99999999999999999999", "1.5", "1e3", "0.0"]:
        for f in [f"-{lit}", f"[.[-{lit}]]", f"-{lit} | -.", f"[-{lit}, - {lit}] | tojson",
                  f"try path(-{lit}) catch .", f"{{a: -{lit}}} | .a + 1"]:
            yield case(rng, f"try ({f}) catch .", "[1,2,3]\n", ["-c"])
    # objects of literal keys (built as one term when every value has one output): errors
    # in several values, values with several outputs or none, a repeated key, many keys
    for f in ['{a: 1, b: 2}', '{a: error("x"), b: error("y")}', '{a: 1, b: error("y"), c: error("z")}',
              '[{a: (1,2), b: error("y")}?]', '{a: 1, a: 2, b: 3}', '{a: .[0], b: empty}',
              '[limit(3; {a: (1,2,3), b: (4,5)})]', 'path({a: 1, b: 2})', '{$__loc__, a: .[1]}',
              '{a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8, i: 9, j: 10, k: 11, l: 12, m: 13,'
              ' n: .[2]} | [.m, .n, has("k"), (.n = 0 | .n), (del(.m) | length), keys_unsorted]',
              '. as $x | {$x, y: ($x | length), "z w": -1} | .y += 1']:
        yield case(rng, f"try ({f}) catch .", "[1,2,3]\n", ["-c"])
    # `f[]` (the values of each output of f, in order; an error of f or of one value ends
    # the run), integer literals as operands and keys, over inputs of every kind
    for stdin in ["[1,[2,3],{\"a\":4}]", '{"a":[1],"b":null}', "null", '"s"', "3", "[]"]:
        for f in ["[.[]]", "[(.[], .)[]?]", "[.[][]]", "[(.a, .b)[]]", "[(error(\"e\"), .)[]]",
                  "[(., error(\"f\"))[]]", "[first(.[])]", "[limit(2; .[][])]", "[.[] | .[]?]",
                  "[(1, [2], {b: 3})[]]", "[(empty)[]]", "[.[0], .[-1], .[1:][0]]",
                  "[.[] | {k: 1, v: ., n: -2}]", "[.[]?] | map(. + 1)", "[to_entries[].key]",
                  "reduce .[] as $x (0; . + 1)", "[paths]", "(.[] | numbers) |= . + 1"]:
            yield case(rng, f"try ({f}) catch .", stdin + "\n", ["-c"])
    # programs that end too soon (jq reports the end of file where its scanner's last
    # match starts: a token, a run of blanks or a comment), strings that never end, comments
    # (to the end of the line, a backslash continuing nothing) and carriage returns (no
    # blank to jq's scanner)
    for f in ["1 + ", "1 +   ", ".a |", "[", "if", ".a[1", "def f:", "1,", "1,\n\n", "1 +\n  2 +",
              ".a\n| .b[", "1 + # c", "1 + # c\n  ", "1 +\n# c", '"', '"abc', '"ab\ncd', '"a\\(1)b',
              '"a\\(', '"a\\(1 + ', '"a\\("x', '1 + "x', '"a\\n\\t', '"a\\u00e9',
              "1 # c\\\n+ 2", "1 # c\\\\\n+ 2", "1 # c\r\n+ 2", "1 +\r", ".a\r\n| .b",
              "[1, # a\\\n 2]", "1 + # c\\\n d\n "]:
        yield case(rng, f, "[1,2]\n", ["-c"])
    # operands: no program (`.`, as jq takes it when not on a terminal), `-` as an operand
    # (a program, an input), -f as a flag naming the first operand the program's file
    for args in ["jq", "jq -c", "jq -n", "jq - .", "jq . -", "jq -c . - -", "jq -f - .",
                 "jq -n -f -", "jq -f nosuch .", "jq --from-file nosuch", "jq -f -n nosuch",
                 "jq -nc --argjson x nope .", "jq -nc --jsonargs '$ARGS' 1 nope",
                 "jq -nc --args '$ARGS' - x"]:
        yield {"tool": "jq", "script": args, "stdin": b'{"a":1}\n'}
    # JSON that breaks off at a closing brace or a colon (jq decides by the value pending
    # first), and words that start with n (null only from "nu", any other a number to read)
    for text in ['{"a":}', '[1}', '[1,}', '[{}}', '{"a":[1}', '{"a":1,"b"}', '{"a":1,"b":}', '{"a":1,}',
                 '{"a"}', '{ }', '[}', '{"a":1:', '{"a"::', '[1:', '{"a":1 }', 'n', 'nx', 'na', 'nax',
                 'nul', 'nulll', 'nann', 'nanx', 'nan12', '[n]', '{"a":n}', 'nu ', 'null1']:
        yield case(rng, ".", text + "\n", ["-c"])
        yield case(rng, ".", text, ["-c"])
    for text in ["null", "nan", "n", "nul"]:
        yield case(rng, "halt_error", text + "\n", ["-c"])
    # fractional indices: jq truncates them toward zero, then counts negatives from the end
    for i in ["-1.5", "1.5", "-0.5", "-2.5", "-3.5", "-4.5", "2.9", "-0.9", "4.7", "-1e300"]:
        for f in [f".[{i}]", f".[{i}] = 9", f".[{i}] |= 9", f"del(.[{i}])", f"getpath([{i}])",
                  f"to_entries[{i}]"]:
            yield case(rng, f"try ({f}) catch .", "[1,2,3]\n", ["-c"])
    for text in ["1000", "-0", "0", "-", "", "007", "-12", " 12", "12 ", "+5", "123456789012345",
                 "1234567890123456", "-999999999999999", "1e2", "0x10", "1_000", "٣", "12a"]:
        yield case(rng, "try tonumber catch .", json.dumps(text) + "\n", ["-c"])
        yield case(rng, "try (tonumber | [., -., . + 1, tostring]) catch .", json.dumps(text) + "\n", ["-c"])
    yield from copy_cases(rng)


# `.` with a layout-only style copies arrays and objects straight from the text: these
# cases go that way, and into every reason to leave it (duplicate keys, parse errors after
# good values, depth limits, a byte order mark, top-level scalars)
COPY_OPTIONS = [["-c"], ["-c"], ["-c"], [], ["--tab"], ["--indent", "1"], ["--indent", "7"],
                ["--indent", "0"], ["-e", "-c"], ["-c", "--arg", "x", "1"]]
COPY_NUMS = NUMS + ["0.10", "1E+2", "1e+2", "-0.0", "1.000", "2e-1", "123456789012345678",
                    "0.1e1", "1E400", "-1E-400", "nan", "NaN", "infinity", "-Infinity",
                    "+1", ".5", "1.", "01", "0e0", "18446744073709551616", "4.0e0"]
COPY_STRS = STRS + ['"\\/slash\\/"', '"\\b\\f\\r"', '"\\u001f\\u0001"', '"\\uDBFF\\uDFFF"',
                    '"\\udc00lone"', '"é日本\U0001F600"', '"\x7f"', '"a\\u007fb"',
                    '"' + "long " * 40 + '"', '"\\u0041\\u00"', '"bad \\x"', '"\\ud800\\u0041"']
RAW_STRS = [b'"\xff\xfe"', b'"a\xc3"', b'"\xed\xa0\x80"', b'"\xf0\x9f\x98"', b'"ok\xe9"',
            b'"\xc0\x80"', b'"\xf5\x80\x80\x80"', b'"\xe0\x80\x80"', b'"\xf4\x90\x80\x80"',
            b'"\xf0\x9f\x98a"', b'"\xe9a\x80"', b'"\x80\x80\\n"', b'"\xf0\x80\x80\x80z"']
RAW_BYTES = [b"\xe0\x80a", b"\xed\xa0\x80b", b"\xf0\x80\x80\x80c", b"\xc0\xafd", b"\xe2\x82",
             b"ok\xe9", b"\xff\xfe", b"\xf4\x90\x80\x80", b"\xe9a\x80", b"\xf0\x9f\x98\x80 fine"]


def copy_json(rng, depth=0, ws=""):
    r = rng.random()
    if depth > 4 or r < 0.3:
        r = rng.random()
        if r < 0.45:
            return rng.choice(COPY_NUMS)
        if r < 0.85:
            return rng.choice(COPY_STRS)
        return rng.choice(["null", "true", "false"])
    sep = rng.choice(["", "", " ", "\n  ", "\t", "\r\n"]) if ws else ""
    n = rng.randint(0, 5)
    if r < 0.6:
        items = [copy_json(rng, depth + 1, ws) for _ in range(n)]
        return "[" + sep + ("," + sep).join(items) + sep + "]"
    keys = [rng.choice(KEYS + ["k" + str(i) for i in range(6)] + ["\\u0061", "a\\nb"])
            for _ in range(n)]
    return "{" + sep + ("," + sep).join(
        '"' + k + '"' + sep + ":" + sep + copy_json(rng, depth + 1, ws) for k in keys) + sep + "}"


def copy_cases(rng):
    def c(stdin, opts=None):
        if isinstance(stdin, str):
            stdin = stdin.encode()
        return {"tool": "jq", "script": " ".join(shlex.quote(a) for a in
                                                 ["jq"] + (opts or rng.choice(COPY_OPTIONS)) + ["."]),
                "stdin": stdin}
    # random nested values, compact and spread out, one or several per input
    for _ in range(200):
        ws = rng.choice(["", " "])
        vals = [copy_json(rng, 0, ws) for _ in range(rng.randint(1, 4))]
        joiner = rng.choice(["\n", " ", "", "\n\n", "\t"])
        yield c(joiner.join(vals) + rng.choice(["\n", "", " \n"]))
    # every number and string shape inside a container
    for n in COPY_NUMS:
        yield c("[" + n + "]\n")
        yield c('{"n":' + n + ', "m": [' + n + "]}")
    for s in COPY_STRS:
        yield c("[" + s + "]\n")
        yield c("{" + s + ":" + s + "}\n")
    for s in RAW_STRS:
        yield c(b"[" + s + b"]\n")
        yield c(b"{" + s + b":1}\n")
        yield c(b'{"a":1,' + s + b':2,"b":' + s + b"}\n")
    # duplicate keys, also spelled differently, and in large objects
    for t in ['{"a":1,"a":2}', '{"a":1,"\\u0061":2}', '[{"x":1,"y":{"x":2,"x":3}}]',
              "{" + ",".join('"k%d":%d' % (i, i) for i in range(40)) + ',"k7":0}',
              "{" + ",".join('"k%d":%d' % (i, i) for i in range(40)) + "}",
              '{"\xff":1,"\xfe":2}', '{"a":{"a":{"a":1}},"b":1}']:
        yield c(t + " [1]\n")
    # errors after good values, truncated input, and other things the copy leaves alone
    good = '[1,{"a":"b"}] {"c":[true,null]}\n'
    for bad in ["[1,]", "[1 2]", '{"a" 1}', '{"a":}', '{1:2}', "[1]]", "{", '[1,"a', "tru",
                "[nan1]", "[-]", "[1.e]", "[0x10]", "]", "}", '{"a":1,}', "[,]", '"ab',
                '{"a":1 "b":2}', "[1}", '{"a":1]', "[\x01]", '["a\nb"]', "[\ufeff1]", "[1] x",
                '"s" 3 [1]', "[" * 10, '{"a":[{"b":']:
        yield c(good + bad + "\n")
        yield c(good + bad)
    body = copy_json(rng, 0, " ")
    for cut in range(1, min(len(body), 40)):
        yield c(body[:cut])
    # nesting at and past the limits, and a byte order mark
    for d in [255, 256, 257]:
        yield c("[" * d + "]" * d + "\n")
        yield c('[{"a":' * (d // 2) + "[]" + "}]" * (d // 2) + "\n")
        yield c('{"a":' * d + "1" + "}" * d + "\n")
        yield c("[1] " + "[" * d + '"x"' + "]" * d)
    for t in ["\ufeff[1]", "\ufeff {\"a\":1}", "\ufeff\ufeff[1]", "[1]\ufeff[2]", "\ufeff"]:
        yield c(t + "\n")
