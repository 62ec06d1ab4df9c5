def _modify(paths; update): reduce path(paths) as $p ([., []]; . as [$x, $del] | label $out | (($x | getpath($p) | update) as $v | [($x | setpath($p; $v)), $del] | ., break $out), [$x, $del + [$p]]) | . as [$x, $del] | $x | delpaths($del);
def _assign(paths; $value): reduce path(paths) as $p (.; setpath($p; $value));
def true: 0 == 0;
def false: 0 != 0;
def not: if . then false else true end;
def select(f): if f then . else empty end;
def values: select(. != null);
def nulls: select(. == null);
def booleans: select(type == "boolean");
def numbers: select(type == "number");
def strings: select(type == "string");
def arrays: select(type == "array");
def objects: select(type == "object");
def iterables: select(type == "array" or type == "object");
def scalars: select(type != "array" and type != "object");
def nan: 0 | _nan;
def infinite: 0 | _infinite;
def error(msg): msg as $m | _error($m);
def error: _error(.);
def isinfinite: type == "number" and (. == infinite or . == -infinite);
def isnan: type == "number" and . != .;
def isnormal: type == "number" and _isnormal;
def isfinite: type == "number" and (isinfinite | not);
def finites: select(isfinite);
def normals: select(isnormal);
def map(f): [.[] | f];
def map_values(f): .[] |= f;
def recurse(f): def r: ., (f | r); r;
def recurse(f; cond): def r: ., (f | select(cond) | r); r;
def recurse: recurse(.[]?);
def while(cond; update): def w: if cond then ., (update | w) else empty end; w;
def range($from; $upto; $by):
  if $by > 0 then $from | while(. < $upto; . + $by)
  elif $by < 0 then $from | while(. > $upto; . + $by)
  else empty end;
def range($from; $upto): _range($from; $upto);
def range($x): range(0; $x);
def until(cond; update): def u: if cond then . else (update | u) end; u;
def repeat(f): def r: f, r; r;
def isempty(g): label $go | (g | false, break $go), true;
def first: .[0];
def first(f): _first(f);
def all(gen; cond): isempty(first(gen | cond and empty));
def any(gen; cond): isempty(first(gen | cond or empty)) | not;
def all: all(.[]; .);
def all(cond): all(.[]; cond);
def any: any(.[]; .);
def any(cond): any(.[]; cond);
def in(xs): . as $x | xs | has($x);
def inside(xs): . as $x | xs | contains($x);
def del(f): delpaths([path(f)]);
def paths: path(..) | select(length > 0);
def paths(node_filter): . as $in | paths | select(. as $p | $in | getpath($p) | node_filter);
def to_entries: [keys_unsorted[] as $k | {key: $k, value: .[$k]}];
def from_entries: reduce .[] as $x ({}; . + {($x | .key // .name // .Name // .Key): ($x | if has("value") then .value else .Value end)});
def with_entries(f): to_entries | map(f) | from_entries;
def flatten: _flatten(1e9);
def flatten($x): if $x < 0 then error("flatten depth must not be negative") else _flatten($x) end;
def last: .[-1];
def nth($n): .[$n];
def indices($i): if type == "array" and ($i | type) == "array" then .[$i] elif type == "array" then .[[$i]] elif type == "string" and ($i | type) == "string" then _strindices($i) else .[$i] end;
def last(f): reduce f as $x (null; $x);
def limit($n; f): _limit($n; f);
def nth($n; f): if $n < 0 then error("nth doesn't support negative indices") else label $out | foreach f as $x (-1; . + 1; if . == $n then $x, break $out else empty end) end;
def combinations: if length == 0 then [] else .[0][] as $x | (.[1:] | combinations) as $w | [$x] + $w end;
def combinations(n): . as $dot | [range(n)] | map($dot) | combinations;
def walk(f): def w: if type == "object" then map_values(w) elif type == "array" then map(w) else . end | f; w;
def max_by(f): _max_by(map([f]));
def max: max_by(.);
def transpose: if . == [] then [] else . as $in | (map(length) | max) as $max | [range(0; $max) as $j | [range(0; $in | length) as $i | $in[$i][$j]]] end;
def env: $ENV;
def index($i): indices($i) | .[0];
def rindex($i): indices($i) | .[-1:][0];
def todate: strftime("%Y-%m-%dT%H:%M:%SZ");
def todateiso8601: strftime("%Y-%m-%dT%H:%M:%SZ");
def fromdateiso8601: strptime("%Y-%m-%dT%H:%M:%SZ") | mktime;
def fromdate: fromdateiso8601;
# _match_impl is a C function in jq: its last argument's outputs are the outer loop
def match(re; mode): mode as $mode | re as $re | _match_impl($re; $mode; false) | .[];
def match($val): ($val | type) as $vt | if $vt == "string" then match($val; null)
  elif $vt == "array" and ($val | length) > 1 then match($val[0]; $val[1])
  elif $vt == "array" and ($val | length) > 0 then match($val[0]; null)
  else error($vt + " not a string or array") end;
def test(re; mode): mode as $mode | re as $re | _match_impl($re; $mode; true);
def test($val): ($val | type) as $vt | if $vt == "string" then test($val; null)
  elif $vt == "array" and ($val | length) > 1 then test($val[0]; $val[1])
  elif $vt == "array" and ($val | length) > 0 then test($val[0]; null)
  else error($vt + " not a string or array") end;
def capture(re; mods): match(re; mods) | reduce (.captures | .[] | select(.name != null) | {key: .name, value: .string}) as $pair ({}; . + {($pair.key): $pair.value});
def capture($val): ($val | type) as $vt | if $vt == "string" then capture($val; null)
  elif $vt == "array" and ($val | length) > 1 then capture($val[0]; $val[1])
  elif $vt == "array" and ($val | length) > 0 then capture($val[0]; null)
  else error($vt + " not a string or array") end;
def scan($re; $flags): _scan_impl($re; "g" + $flags)[];
def scan($re): scan($re; null);
def _nwise($n): def n: if length <= $n then . else .[0:$n], (.[$n:] | n) end; n;
def split($re; flags): _split_impl($re; "g" + flags);
def splits($re; flags): split($re; flags) | .[];
def splits($re): splits($re; null);
def sub($re; str; $flags): _sub($re; str; $flags);
def sub($re; str): _sub($re; str; "");
def gsub($re; str; $flags): _sub($re; str; $flags + "g");
def gsub($re; str): _sub($re; str; "g");
def tostream: path(def r: (.[]? | r), .; r) as $p | getpath($p) | reduce path(.[]?) as $q ([$p, .]; [$p + $q]);
def fromstream(f): {x: null, e: false} as $init | foreach f as $i ($init;
    if .e then $init else . end
    | if $i | length == 2
      then setpath(["e"]; $i[0] | length == 0) | setpath(["x"] + $i[0]; $i[1])
      else setpath(["e"]; $i[0] | length == 1) end;
    if .e then .x else empty end);
def truncate_stream(stream): . as $n | null | stream | . as $input | if (.[0] | length) > $n then setpath([0]; .[0][$n:]) else empty end;
def min_by(f): _min_by(map([f]));
def min: min_by(.);
def group_by(f): _group_by(map([f]));
def unique_by(f): [group_by(f)[] | .[0]];
def unique: unique_by(.);
def sort_by(f): _sort_by(map([f]));
def pick(pathexps): . as $top | reduce path(pathexps) as $p (null; setpath($p; $top | getpath($p)));
def debug(msg): (msg | debug | empty), .;
def halt_error: halt_error(5);
def get_search_list: ["~/.jq", "$ORIGIN/../lib/jq", "$ORIGIN/../lib"];
def INDEX(stream; idx_expr): reduce stream as $row ({}; .[$row | idx_expr | tostring] |= $row);
def INDEX(idx_expr): INDEX(.[]; idx_expr);
def JOIN($idx; idx_expr): [.[] | [., $idx[idx_expr]]];
def JOIN($idx; stream; idx_expr): stream | [., $idx[idx_expr]];
def JOIN($idx; stream; idx_expr; join_expr): stream | [., $idx[idx_expr]] | join_expr;
def IN(s): any(s == .; .);
def IN(src; s): any(src == s; .);
def inputs: try repeat(input) catch (if . == "break" then empty else error end);
def abs: if type == "number" and . < 0 then - . else . end;
def pow10: pow(10; .);
def gamma: lgamma;
def drem($a; $b): remainder($a; $b);
def nexttoward($a; $b): nextafter($a; $b);
def scalb($a; $b): $a * pow(2; $b);
def significand: if . == 0 then 0 else frexp | .[0] * 2 end;
def logb: if . == 0 then -infinite else frexp | .[1] - 1 end;
def localtime: _localtime;
def input_line_number: _input_line_number;
def get_jq_origin: null;
def get_prog_origin: null;
def modulemeta: error("modulemeta is not supported");
