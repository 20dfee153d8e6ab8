"""The GraphQL API checked by a client nobody here wrote: graphql-core (graphql-js's Python port) builds a client
schema from the server's introspection, then validates each operation of the tutorials (the cats app, the photo
wall, the leaderboard) against it before it is sent, and the answers are checked.

Usage: check_graphql.py GRAPHQL_URL REST_URL APPLICATION_ID MASTER_KEY. Exits 1 with the failures printed."""
import json
import sys
import uuid
import urllib.error
import urllib.request

from graphql import build_client_schema, get_introspection_query, parse, validate

GRAPHQL_URL, REST_URL, APP_ID, MASTER_KEY = sys.argv[1:5]
failures = []


def call(url, body, headers, method="POST", raw=None):
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    request = urllib.request.Request(url, data=data, method=method, headers={"X-Parse-Application-Id": APP_ID, **headers})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def rest(method, path, body=None, master=True):
    headers = {"Content-Type": "application/json"}
    if master:
        headers["X-Parse-Master-Key"] = MASTER_KEY
    return call(REST_URL + path, body, headers, method)


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)


schema = None


def graphql(query, variables=None, token=None, master=False, expect_errors=False):
    """Validates `query` against the client schema, sends it and returns its data."""
    errors = validate(schema, parse(query)) if schema else []
    check(not errors, f"graphql-core refuses {query!r}: {errors}")
    headers = {"Content-Type": "application/json"}
    if token:
        headers["X-Parse-Session-Token"] = token
    if master:
        headers["X-Parse-Master-Key"] = MASTER_KEY
    status, answer = call(GRAPHQL_URL, {"query": query, "variables": variables or {}}, headers)
    if not expect_errors:
        check(status == 200 and "errors" not in answer, f"{query!r} answered {status} {answer}")
    return answer


suffix = uuid.uuid4().hex[:10]
# The tutorials' classes, with their fields, as their apps make them through REST.
username, password = f"wall{suffix}", "pass-" + suffix
status, user = rest("POST", "/users", {"username": username, "password": password}, master=False)
check(status == 201, f"sign-up: {status} {user}")
status, cat = rest("POST", "/classes/Cat", {"name": f"Tom{suffix}", "votes": 0})
check(status == 201, f"a cat: {status} {cat}")
for score in (5, 20, 30):
    rest("POST", "/classes/Player", {"playerName": f"p{score}-{suffix}", "score": score, "league": suffix})
status, stored = call(REST_URL + "/files/photo.txt", None, {"Content-Type": "text/plain", "X-Parse-Session-Token": user.get("sessionToken", "")},
                      raw=b"a photo")
check(status == 201, f"a file: {status} {stored}")
status, post = rest("POST", "/classes/WallPost", {
    "text": f"hello {suffix}", "image": {"__type": "File", "name": stored.get("name"), "url": stored.get("url")},
    "author": username, "user": {"__type": "Pointer", "className": "_User", "objectId": user.get("objectId")}})
check(status == 201, f"a wall post: {status} {post}")

status, introspection = call(GRAPHQL_URL, {"query": get_introspection_query(descriptions=True)},
                             {"Content-Type": "application/json", "X-Parse-Master-Key": MASTER_KEY})
check(status == 200 and "errors" not in introspection, f"introspection: {status}")
schema = build_client_schema(introspection["data"])
for name in ("Cat", "CatConnection", "CatWhereInput", "CreateCatInput", "WallPost", "Player", "User", "Viewer",
             "FileInfo", "ParseObject", "Node"):
    check(schema.get_type(name) is not None, f"the schema has no {name}")
for name in ("cat", "cats", "wallPost", "wallPosts", "player", "players", "node", "viewer", "health"):
    check(name in schema.query_type.fields, f"Query has no {name}")
for name in ("createCat", "updateCat", "deleteCat", "signUp", "logIn", "logOut", "createFile"):
    check(name in schema.mutation_type.fields, f"Mutation has no {name}")

# The cats app: a cat read by id, a double tap as an update of its votes, a new cat, one deleted. Other suites
# change the permissions of their classes (Cat among them), so these go with the master key.
got = graphql("query GetCat($id: ID!) { cat(id: $id) { id objectId name votes createdAt ACL { public { read } } } }",
              {"id": cat.get("objectId")}, master=True)
check(got.get("data", {}).get("cat", {}).get("name") == f"Tom{suffix}", f"cat by id: {got}")
global_id = got.get("data", {}).get("cat", {}).get("id")
node = graphql("query Node($id: ID!) { node(id: $id) { id ... on Cat { name } } }", {"id": global_id}, master=True)
check(node.get("data", {}).get("node", {}).get("name") == f"Tom{suffix}", f"node by global id: {node}")
created = graphql("mutation NewCat($input: CreateCatInput!) { createCat(input: $input) { clientMutationId cat { id objectId name votes } } }",
                  {"input": {"fields": {"name": f"Kit{suffix}", "votes": 1}, "clientMutationId": "m1"}}, master=True)
new_cat = created.get("data", {}).get("createCat", {})
check(new_cat.get("clientMutationId") == "m1" and new_cat.get("cat", {}).get("votes") == 1, f"createCat: {created}")
updated = graphql("mutation Like($id: ID!) { updateCat(input: {id: $id, fields: {votes: 2}}) { cat { votes updatedAt } } }",
                  {"id": new_cat.get("cat", {}).get("id")}, master=True)
check(updated.get("data", {}).get("updateCat", {}).get("cat", {}).get("votes") == 2, f"updateCat: {updated}")
found = graphql("query Kits($name: String) { cats(where: {name: {equalTo: $name}}) { count edges { node { votes } } } }",
                {"name": f"Kit{suffix}"}, master=True)
check(found.get("data", {}).get("cats", {}).get("count") == 1, f"cats where name: {found}")
deleted = graphql("mutation Gone($id: ID!) { deleteCat(input: {id: $id}) { cat { objectId } } }",
                  {"id": new_cat.get("cat", {}).get("objectId")}, master=True)
check(deleted.get("data", {}).get("deleteCat", {}).get("cat", {}).get("objectId") == new_cat.get("cat", {}).get("objectId"),
      f"deleteCat: {deleted}")

# The leaderboard: the best scores of a league, a page at a time.
board = graphql("""query Board($league: String) {
  players(where: {league: {equalTo: $league}, score: {greaterThan: 10}}, order: [score_DESC], first: 1) {
    count pageInfo { hasNextPage endCursor } edges { cursor node { playerName score } } } }""", {"league": suffix}, master=True)
players = board.get("data", {}).get("players", {})
check(players.get("count") == 2 and [e["node"]["score"] for e in players.get("edges", [])] == [30]
      and players.get("pageInfo", {}).get("hasNextPage") is True, f"players page 1: {board}")
after = players.get("pageInfo", {}).get("endCursor")
page2 = graphql("""query Next($league: String, $after: String) {
  players(where: {league: {equalTo: $league}, score: {greaterThan: 10}}, order: [score_DESC], first: 1, after: $after) {
    pageInfo { hasNextPage } edges { node { score } } } }""", {"league": suffix, "after": after}, master=True)
edges = page2.get("data", {}).get("players", {}).get("edges", [])
check([e["node"]["score"] for e in edges] == [20], f"players page 2: {page2}")

# The photo wall: log in, read the posts with their image and author, the viewer.
login = graphql("mutation LogIn($u: String!, $p: String!) { logIn(input: {username: $u, password: $p}) { viewer { sessionToken user { username } } } }",
                {"u": username, "p": password})
viewer = login.get("data", {}).get("logIn", {}).get("viewer", {})
check(viewer.get("user", {}).get("username") == username and viewer.get("sessionToken"), f"logIn: {login}")
token = viewer.get("sessionToken")
me = graphql("{ viewer { user { id username } } }", token=token)
check(me.get("data", {}).get("viewer", {}).get("user", {}).get("username") == username, f"viewer: {me}")
wall = graphql("""query Wall($u: String) {
  wallPosts(where: {user: {have: {username: {equalTo: $u}}}}) {
    edges { node { text author image { name url } user { username } } } } }""", {"u": username}, token=token)
posts = wall.get("data", {}).get("wallPosts", {}).get("edges", [])
check(len(posts) == 1 and posts[0]["node"]["user"]["username"] == username and posts[0]["node"]["author"] == username
      and posts[0]["node"]["image"]["url"].startswith("http"), f"wallPosts: {wall}")

# Both sides agree on what is not GraphQL: graphql-core's validation and the server's.
bad = "{ cats { edges { node { noSuchField } } } }"
check(validate(schema, parse(bad)) != [], "graphql-core accepts an unknown field")
status, answer = call(GRAPHQL_URL, {"query": bad}, {"Content-Type": "application/json"})
check(status == 400 and answer.get("errors"), f"the server accepts an unknown field: {status} {answer}")

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
