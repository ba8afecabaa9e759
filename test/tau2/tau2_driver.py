"""Drives τ²-bench's own domain code (../shared/data/tau2/reference, v1.0.1) for heldout's differential test.

Reads one JSON request per line on stdin and answers one JSON line per request on stdout:
  {"id", "domain", "initial_state", "calls": [{"name", "args" (JSON text), "requestor"}], "assertions"?, "verify"?}
  -> {"id", "init_error"?, "results": [{"error", "content", "changed"}], "hash", "user_hash", "verified"?,
      "assertions"?}
Each request is one trajectory on a fresh environment. `changed` maps "<table>/<key>" to the
`json.dumps(model_dump(), sort_keys=True, default=str)` text of every record that differs from the initial database
after the call (null for a removed one); telecom's databases count as one record each ("db", "user_db").

Speed without touching τ²'s behaviour: the large tables (airline, retail) are copied on first access per record
(τ²'s tools change only records they fetch with `table[key]`), and the hash is assembled from per-record texts.
With "verify" the hash is also recomputed with τ²'s own `get_db_hash()`, and a mismatch is reported.
Two more requests: {"op": "reward", "domain", "task", "messages"} grades a trajectory with τ²'s own evaluators
(EnvironmentEvaluator, ActionEvaluator, CommunicateEvaluator, combined over the task's reward basis as
evaluate_simulation does), and {"op": "gold", "domain", "task"} answers the records the gold replay changes.
Two things a long-lived process would carry between tasks are reset per trajectory, as a fresh τ² process has them:
telecom's shared `default_vpn_details`, and the random bill ids `uuid4` gives (a per-environment sequence heldout
reproduces, since τ² draws them at random).
"""

import copy
import hashlib
import json
import os
import sys
import uuid

DATA = os.environ["HELDOUT_TAU2_DATA"]

from tau2.data_model.message import ToolCall  # noqa: E402
from tau2.data_model.tasks import EnvAssertion, InitialState  # noqa: E402
from tau2.environment.environment import Environment  # noqa: E402


def dumps(v):
    return json.dumps(v, sort_keys=True, default=str)


class CowDict(dict):
    """A table whose records are copied from the pristine one the first time a tool reads `table[key]`."""

    def __init__(self, pristine):
        super().__init__(pristine)
        self.pristine = pristine
        self.copied = set()

    def __setitem__(self, key, value):
        self.copied.add(key)
        dict.__setitem__(self, key, value)

    def __delitem__(self, key):
        self.copied.add(key)
        dict.__delitem__(self, key)

    def pop(self, key, *default):
        self.copied.add(key)
        return dict.pop(self, key, *default)

    def __getitem__(self, key):
        if key not in self.copied and dict.__contains__(self, key):
            v = dict.__getitem__(self, key)
            if self.pristine.get(key) is v:
                dict.__setitem__(self, key, v.model_copy(deep=True))
            self.copied.add(key)
        return dict.__getitem__(self, key)


class Domain:
    def __init__(self, name):
        self.name = name
        d = os.path.join(DATA, name)
        if name == "airline":
            from tau2.domains.airline.data_model import FlightDB
            from tau2.domains.airline.tools import AirlineTools

            self.db = FlightDB.model_validate(json.load(open(os.path.join(d, "db.json"))))
            self.tools = AirlineTools
        elif name == "retail":
            from tau2.domains.retail.data_model import RetailDB
            from tau2.domains.retail.tools import RetailTools

            self.db = RetailDB.model_validate(json.load(open(os.path.join(d, "db.json"))))
            self.tools = RetailTools
        else:
            from tau2.domains.telecom.data_model import TelecomDB
            from tau2.domains.telecom.user_data_model import TelecomUserDB

            self.db = TelecomDB.load(os.path.join(d, "db.toml"))
            self.user_db = TelecomUserDB.load(os.path.join(d, "user_db.toml"))
            self.db_texts = {"db": dumps(self.db.model_dump()), "user_db": dumps(self.user_db.model_dump())}
        self.tables = sorted(type(self.db).model_fields) if name != "telecom" else []
        self.hashes = 0
        # Texts of records nobody changes (the pristine database's, and those of the updated bases below).
        self.texts = {}
        for t in self.tables:
            for r in getattr(self.db, t).values():
                self.texts[id(r)] = dumps(r.model_dump())
        self.pristine = {t: {k: id(r) for k, r in getattr(self.db, t).items()} for t in self.tables}
        # τ²'s update_db of the pristine database, once per distinct update (a task's initialization_data).
        self.updated = {}
        self.diffs = {}

    def text(self, r, base_table, k):
        if base_table.get(k) is r:
            t = self.texts.get(id(r))
            if t is None:
                t = self.texts[id(r)] = dumps(r.model_dump())
            return t
        return dumps(r.model_dump())

    def base_diff(self, t, base):
        """The keys where an updated base's table differs from the pristine one (none for the pristine itself)."""
        if base is getattr(self.db, t):
            return set()
        key = (t, id(base))
        if key not in self.diffs:
            pristine = self.pristine[t]
            self.diffs[key] = {k for k in set(base) | set(pristine) if k not in base or pristine.get(k) != id(base[k])}
        return self.diffs[key]

    def cow(self, base):
        db = base.model_copy()
        for t in self.tables:
            setattr(db, t, CowDict(getattr(base, t)))
        return db

    def environment(self):
        if self.name == "telecom":
            from tau2.domains.telecom import tools as telecom_tools
            from tau2.domains.telecom.environment import TelecomEnvironment
            from tau2.domains.telecom.tools import TelecomTools
            from tau2.domains.telecom.user_data_model import PerformanceLevel, VpnDetails
            from tau2.domains.telecom.user_tools import TelecomUserTools

            TelecomUserTools.default_vpn_details = VpnDetails(
                server_address="192.168.1.1", protocol="OpenVPN", server_performance=PerformanceLevel.EXCELLENT
            )
            n = [0]

            def uuid4():
                n[0] += 1
                head = hashlib.sha256(f"heldout:bill:{n[0]}".encode()).hexdigest()[:8]
                return uuid.UUID(hex=head + "0" * 24)

            telecom_tools.uuid.uuid4 = uuid4
            return TelecomEnvironment(
                domain_name="telecom",
                policy="",
                tools=TelecomTools(copy.deepcopy(self.db)),
                user_tools=TelecomUserTools(copy.deepcopy(self.user_db)),
            )
        from tau2.utils.pydantic_utils import update_pydantic_model_with_dict

        env = Environment(domain_name=self.name, policy="", tools=self.tools(self.cow(self.db)))
        toolkit = env.tools
        real_hash = toolkit.get_db_hash
        real_update = toolkit.update_db

        # τ²'s evaluator hashes each database twice; the per-record texts make that cheap, and every 25th hash is
        # also computed τ²'s own way and must agree.
        def get_db_hash():
            self.hashes += 1
            h = self.hash_db(toolkit.db)
            if self.hashes % 25 == 1 and h != real_hash():
                raise RuntimeError("the driver's incremental hash differs from get_db_hash()")
            return h

        # set_state's update_db, done by τ²'s own function, once per distinct update of the pristine database.
        def update_db(update_data=None):
            untouched = all(not getattr(toolkit.db, t).copied for t in self.tables)
            if not untouched or any(getattr(toolkit.db, t).pristine is not getattr(self.db, t) for t in self.tables):
                return real_update(update_data)
            key = json.dumps(update_data or {}, sort_keys=True, default=str)
            if key not in self.updated:
                self.updated[key] = update_pydantic_model_with_dict(self.db, update_data or {})
            toolkit.db = self.cow(self.updated[key])

        toolkit.get_db_hash = get_db_hash
        toolkit.update_db = update_db
        return env

    def changed(self, env):
        if self.name == "telecom":
            now = {"db": dumps(env.tools.db.model_dump()), "user_db": dumps(env.user_tools.db.model_dump())}
            return {k: v for k, v in now.items() if v != self.db_texts[k]}
        out = {}
        db = env.tools.db
        for t in self.tables:
            table = getattr(db, t)
            pristine = self.pristine[t]
            base = table.pristine if isinstance(table, CowDict) else {}
            keys = set(table) | set(pristine)
            if isinstance(table, CowDict):
                keys = set(table.copied) | self.base_diff(t, base)
            for k in keys:
                if not dict.__contains__(table, k):
                    out[f"{t}/{k}"] = None
                    continue
                r = dict.__getitem__(table, k)
                if pristine.get(k) == id(r):
                    continue
                text = self.text(r, base, k)
                if k not in pristine or text != self.texts[pristine[k]]:
                    out[f"{t}/{k}"] = text
        return out

    def hash(self, env):
        if self.name == "telecom":
            return env.get_db_hash()
        return self.hash_db(env.tools.db)

    def hash_db(self, db):
        parts = []
        for t in self.tables:
            table = getattr(db, t)
            base = table.pristine if isinstance(table, CowDict) else {}
            items = []
            for k in sorted(table.keys()):
                items.append(json.dumps(k) + ": " + self.text(dict.__getitem__(table, k), base, k))
            parts.append(json.dumps(t) + ": {" + ", ".join(items) + "}")
        return hashlib.sha256(("{" + ", ".join(parts) + "}").encode()).hexdigest()


domains = {}


def messages_of(raw):
    from tau2.data_model.message import AssistantMessage, ToolMessage, UserMessage

    out = []
    for m in raw:
        calls = [ToolCall(**c) for c in m.get("tool_calls") or []] or None
        if m["role"] == "tool":
            out.append(
                ToolMessage(
                    id=m["id"], role="tool", content=m["content"], requestor=m.get("requestor", "assistant"),
                    error=m.get("error", False),
                )
            )
        elif m["role"] == "assistant":
            out.append(AssistantMessage(role="assistant", content=m.get("content") or None, tool_calls=calls))
        else:
            out.append(UserMessage(role="user", content=m.get("content") or None, tool_calls=calls))
    return out


def reward(req):
    from tau2.data_model.tasks import RewardType, Task
    from tau2.evaluator.evaluator_action import ActionEvaluator
    from tau2.evaluator.evaluator_communicate import CommunicateEvaluator
    from tau2.evaluator.evaluator_env import EnvironmentEvaluator

    dom = domain_of(req["domain"])
    task = Task.model_validate(req["task"])
    msgs = messages_of(req["messages"])
    env = EnvironmentEvaluator.calculate_reward(
        environment_constructor=lambda solo_mode=False, **kw: dom.environment(), task=task, full_trajectory=msgs
    )
    action = ActionEvaluator.calculate_reward(task=task, full_trajectory=msgs)
    comm = CommunicateEvaluator.calculate_reward(task=task, full_trajectory=msgs)
    basis = set(task.evaluation_criteria.reward_basis) if task.evaluation_criteria else set()
    total = 1.0
    if basis & {RewardType.DB, RewardType.ENV_ASSERTION}:
        total *= env.reward
    if RewardType.ACTION in basis:
        total *= action.reward
    if RewardType.COMMUNICATE in basis:
        total *= comm.reward
    return {
        "id": req.get("id"),
        "reward": total,
        "db_match": env.db_check.db_match if env.db_check else None,
        "env_assertions": [c.met for c in env.env_assertions or []],
        "action": action.reward,
        "communicate": comm.reward,
    }


def gold(req):
    from tau2.data_model.tasks import Task

    dom = domain_of(req["domain"])
    task = Task.model_validate(req["task"])
    env = dom.environment()
    init = task.initial_state
    if init:
        env.set_state(init.initialization_data, init.initialization_actions, init.message_history or [])
    refused = []
    for a in task.evaluation_criteria.actions or []:
        try:
            env.make_tool_call(tool_name=a.name, requestor=a.requestor, **a.arguments)
        except Exception as e:  # noqa: BLE001 - τ²'s evaluator skips them too
            refused.append(f"{a.name}: {e}")
    texts = {}
    for key in req.get("keys") or []:
        table, _, k = key.partition("/")
        rows = getattr(env.tools.db, table)
        texts[key] = dumps(dict.__getitem__(rows, k).model_dump()) if dict.__contains__(rows, k) else None
    return {"id": req.get("id"), "changed": dom.changed(env), "refused": refused, "texts": texts}


def domain_of(name):
    if name not in domains:
        domains[name] = Domain(name)
    return domains[name]


def run(req):
    if req.get("op") == "reward":
        return reward(req)
    if req.get("op") == "gold":
        return gold(req)
    dom = domain_of(req["domain"])
    env = dom.environment()
    out = {"id": req.get("id")}
    init = req.get("initial_state")
    if init:
        try:
            state = InitialState.model_validate(init)
            env.set_state(state.initialization_data, state.initialization_actions, state.message_history or [])
        except Exception as e:  # noqa: BLE001 - the test reports it
            out["init_error"] = f"{type(e).__name__}: {e}"
            return out
    results = []
    for k, c in enumerate(req["calls"]):
        call = ToolCall(id=str(k), name=c["name"], arguments=json.loads(c["args"]), requestor=c.get("requestor", "assistant"))
        msg = env.get_response(call)
        results.append({"error": msg.error, "content": msg.content, "changed": dom.changed(env)})
    out["results"] = results
    out["hash"] = dom.hash(env)
    out["user_hash"] = env.get_user_db_hash()
    if req.get("verify"):
        out["verified"] = out["hash"] == type(env.tools).get_db_hash(env.tools)
    checks = []
    for a in req.get("assertions") or []:
        try:
            checks.append(env.run_env_assertion(EnvAssertion.model_validate(a), raise_assertion_error=False))
        except Exception as e:  # noqa: BLE001
            checks.append(f"{type(e).__name__}: {e}")
    if req.get("assertions") is not None:
        out["assertions"] = checks
    return out


for line in sys.stdin:
    if not line.strip():
        continue
    req = json.loads(line)
    try:
        res = run(req)
    except Exception as e:  # noqa: BLE001 - a driver failure is the test's to report
        res = {"id": req.get("id"), "driver_error": f"{type(e).__name__}: {e}"}
    sys.stdout.write(json.dumps(res) + "\n")
    sys.stdout.flush()
