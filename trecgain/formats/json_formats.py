"""`--format json` (one document: the options, then each run's object) and `--format jsonl`
(one object per row), laid out as json.dumps lays them out, written as the values come."""

from __future__ import annotations

from .common import Buffered, RunValues, at, dumps, each_row, finite, json_value, visit_queries
from .record import Format


def begin(header: dict, count: int, out: Buffered) -> None:
    """The document up to its list of runs."""
    head = dumps({**header, "runs": []})  # ends '"runs": []\n}'
    out.write(head[:-len("[]\n}")] + ("[\n" if count else "[]\n}\n"))


def end(count: int, out: Buffered) -> None:
    out.write("\n  ]\n}\n" if count else "")


def write_run(values: RunValues, out: Buffered, depth: int = 2) -> None:
    """A run's object as json.dumps(indent=2) lays it out `depth` levels deep (2: an item of the
    document's "runs"; 0: Result.to_json), its per-query objects written one at a time."""
    head = {"file": values.file, "runid": values.runid}
    if values.convention is not None:  # --as TOOL: the values are that tool's, not trec_eval's
        head["convention"] = values.convention
    if values.aggregate is not None:
        head["aggregate"] = {name: finite(v) for name, v in values.aggregate.items()}
    indent = "  " * depth
    text = indent + at(dumps(head), depth)
    if values.per_query is None:
        out.write(text)
        return
    import json  # not at import: the trec text needs no json (start-up of every evaluation)

    out.write(text[:-len("\n" + indent + "}")] + ",\n" + indent + '  "per_query": {')
    written = [0]
    keys: dict[str, str] = {}  # a line name's JSON spelling, indented as json.dumps(indent=2) puts it

    def query(qid: str, line_values: dict) -> None:
        for name in line_values.keys() - keys.keys():
            keys[name] = "\n" + indent + "      " + json.dumps(name) + ": "
        body = ",".join(keys[name] + json_value(v) for name, v in line_values.items())
        out.write(("," if written[0] else "") + "\n" + indent + "    " + json.dumps(qid) + ": "
                  + ("{" + body + "\n" + indent + "    }" if body else "{}"))
        written[0] += 1

    visit_queries(values, query)
    out.write(("\n" + indent + "  }\n" if written[0] else "}\n") + indent + "}")


def write_row_objects(values: RunValues, out: Buffered) -> None:
    """One JSON object per row, as json.dumps spells {field: value} (its ', ' and ': ')."""
    import json  # not at import: the trec text needs no json (start-up of every evaluation)

    names: dict[str, str] = {}

    def row(run: str, query: str, name: str, value: object, summary: bool) -> None:
        if name not in names:
            names[name] = json.dumps(name)
        out.write(f'{{"run": {json.dumps(run)}, "query": {json.dumps(query)}, "measure": {names[name]}, '
                  f'"value": {json_value(value)}, "summary": {"true" if summary else "false"}}}\n')

    each_row(values, row)


JSON = Format("json", "one JSON document: the options, then each run's aggregate and per-query values", write_run,
              begin=begin, end=end, separator=",\n")
JSONL = Format("jsonl", "JSON lines: one object per value (run, query, measure, value, summary)", write_row_objects)
