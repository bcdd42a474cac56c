#!/usr/bin/python3
"""Run Potato's own code on the projects evalgate exported, and keep what it wrote.

Usage (once, after `go test ./cmd/evalgate -run TestPotatoExportGolden -update` rewrote the
projects under SET/, e.g. quickstart/):

    POTATO_SRC=/tmp/potato /usr/bin/python3 generate.py quickstart calib

POTATO_SRC is an unpacked davidjurgens/potato checkout (see README.md for the commit). For each
project directory SET/<project>/ (config.yaml, data/traces.jsonl, evalgate.json exactly as
`evalgate export potato` wrote them) this script, in a copy under a temporary directory:

1. starts Potato as `potato start config.yaml` does (flask_server.create_app runs init_config:
   the config validator, then load_all_data: the instance loader), in a child process because
   Potato keeps its state in module singletons;
2. logs in three raters through the Flask app and, for every instance Potato assigns them,
   GETs /annotate (the page Potato serves: it must hold the rubric_eval rows of every criterion,
   the coding_trace display with the tool calls and the diff) and POSTs the ratings to
   /updateinstance, Potato's own route, which saves user_state.json through its user-state code;
3. runs Potato's export CLI (`python -m potato.export --format jsonl`), which reads the
   user_state.json files with its export loader (load_annotations_from_output_dir);

and copies SET/<project>/annotation_output/<user>/user_state.json and
SET/<project>/export/annotations.jsonl back. The ratings are positions 1…scale_points drawn
from random.Random seeded by rater, instance and criterion, so a rerun gives the same values.
"""

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RATERS = ["ann_a", "ann_b", "ann_c"]


def child(project):
    """Serve one project with Potato and rate every instance as each rater."""
    sys.path.insert(0, os.environ["POTATO_SRC"])
    import yaml
    from potato.flask_server import create_app
    from potato.user_state_management import get_user_state_manager

    os.chdir(project)
    app = create_app(os.path.join(project, "config.yaml"))
    app.config["TESTING"] = True
    cfg = yaml.safe_load(open("config.yaml"))
    schemes = cfg["annotation_schemes"]
    for rater in RATERS:
        c = app.test_client()
        c.post("/register", data={"email": rater, "pass": "x"})
        c.post("/auth", data={"email": rater, "pass": "x"})
        seen = set()
        while True:
            page = c.get("/annotate")
            assert page.status_code == 200, page.status_code
            html = page.data.decode()
            state = get_user_state_manager().get_user_state(rater)
            iid = state.get_current_instance_id()
            if iid is None or iid in seen:
                break
            seen.add(iid)
            for want in ["coding-trace-display", "ct-tool-call", "Workspace diff", "Final answer"]:
                assert want in html, f"{project}: {iid}: the page lacks {want}"
            ratings = {}
            for s in schemes:
                rows = [cr["name"] for cr in s["criteria"]] + (["overall"] if s.get("show_overall") else [])
                for row in rows:
                    assert f'name="{s["name"]}:::{row}"' in html, f"{project}: no rubric row {s['name']}:{row}"
                    rng = random.Random(f"{rater}/{iid}/{s['name']}/{row}")
                    ratings[f"{s['name']}:{row}"] = str(rng.randint(1, s["scale_points"]))
            r = c.post("/updateinstance", json={"instance_id": iid, "annotations": ratings})
            assert r.status_code == 200 and b'"error"' not in r.data, r.data
            c.post("/annotate", json={"action": "next_instance"})
        print(f"{project}: {rater} rated {len(seen)} instances")


def main(sets):
    for s in sets:
        for name in sorted(os.listdir(os.path.join(HERE, s))):
            src = os.path.join(HERE, s, name)
            if not os.path.isfile(os.path.join(src, "config.yaml")):
                continue
            with tempfile.TemporaryDirectory() as tmp:
                work = os.path.join(tmp, name)
                shutil.copytree(src, work, ignore=shutil.ignore_patterns("annotation_output", "export"))
                env = dict(os.environ, PYTHONPATH=os.path.join(HERE, "stubs"))
                subprocess.run([sys.executable, __file__, "--child", work], env=env, check=True)
                subprocess.run([sys.executable, "-m", "potato.export", "--config", "config.yaml",
                                "--format", "jsonl", "--output", "export"],
                               cwd=work, check=True,
                               env=dict(env, PYTHONPATH=os.environ["POTATO_SRC"] + os.pathsep + env["PYTHONPATH"]))
                for sub in ["annotation_output", "export"]:
                    shutil.rmtree(os.path.join(src, sub), ignore_errors=True)
                for rater in RATERS:
                    st = os.path.join(work, "annotation_output", rater, "user_state.json")
                    os.makedirs(os.path.join(src, "annotation_output", rater))
                    shutil.copy(st, os.path.join(src, "annotation_output", rater))
                os.makedirs(os.path.join(src, "export"))
                shutil.copy(os.path.join(work, "export", "annotations.jsonl"), os.path.join(src, "export"))


if __name__ == "__main__":
    if sys.argv[1] == "--child":
        child(sys.argv[2])
    else:
        main(sys.argv[1:])
