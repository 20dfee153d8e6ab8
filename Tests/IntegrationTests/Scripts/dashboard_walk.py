#!/usr/bin/env python3
"""The dashboard walked in headless Chromium as a person would, against the stack `deploy/stack test` runs.

The Paws tutorial: log in (a wrong master key first), create Cat, add its four columns, import Cat.json, sort
by votes, edit a name (and see a wrong type refused), see a vote made through the REST API appear, open
Analytics and see those requests; the photo wall: the user and the WallPost with its image. Also: a forged
request from a page of another origin changes nothing, the permissions editor saves, a push is composed and
listed, Config parameters are added and deleted, a role's users are edited through its relation, a webhook is added and deleted and a job run and followed, the server's logs are searched, the API console asks as
the master key and as a user, the GraphQL console runs a query and shows the schema's docs, a class is exported, Settings shows the keys and exports the app, and the first page of a large class is timed (printed, not asserted).
A screenshot of each step goes to PARSE_TEST_SCREENSHOTS. Exit status 0 when every check held.
"""
import base64
import http.server
import io
import json
import os
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
import zlib

from selenium import webdriver
from selenium.common.exceptions import ElementClickInterceptedException, StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "..", "..", "Fixtures", "Cat.json")
SERVER = os.environ.get("PARSE_TEST_SERVER_URL", "http://127.0.0.1:21337/parse")
DASHBOARD = os.environ.get("PARSE_TEST_DASHBOARD_URL", SERVER.rsplit("/", 1)[0] + "/dashboard/")
APP_ID = os.environ.get("PARSE_TEST_APPLICATION_ID", "myAppId")
MASTER_KEY = os.environ.get("PARSE_TEST_MASTER_KEY", "myMasterKey")
SHOTS = os.environ.get("PARSE_TEST_SCREENSHOTS", os.path.join(tempfile.gettempdir(), "dashboard-screenshots"))
LARGE_ROWS = int(os.environ.get("PARSE_TEST_DASHBOARD_ROWS", "1000000"))
WAIT = 30



def png(width=2, height=2):
    """A small orange PNG, the photo wall's picture."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + b"\xff\x99\x33" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


PNG = png(64, 48)


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)
    print("ok -", message, flush=True)


def rest(method, path, body=None, master=True, token=None, raw=None, content_type="application/json", headers=None):
    """One REST call; returns (status, parsed JSON or text)."""
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    request = urllib.request.Request(SERVER + path, data=data, method=method)
    request.add_header("X-Parse-Application-Id", APP_ID)
    if master:
        request.add_header("X-Parse-Master-Key", MASTER_KEY)
    if token:
        request.add_header("X-Parse-Session-Token", token)
    if data is not None:
        request.add_header("Content-Type", content_type)
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            text = response.read().decode()
            status = response.status
    except urllib.error.HTTPError as error:
        text = error.read().decode()
        status = error.code
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def remove_class(name):
    rest("DELETE", "/purge/" + name)
    rest("DELETE", "/schemas/" + name)


class Walk:
    def __init__(self):
        os.makedirs(SHOTS, exist_ok=True)
        # This run's screenshots only: an earlier run's would mix with them under the same step numbers.
        for name in os.listdir(SHOTS):
            if name.endswith(".png"):
                os.remove(os.path.join(SHOTS, name))
        options = webdriver.ChromeOptions()
        options.add_argument("--headless=new")
        options.add_argument("--no-sandbox")
        options.add_argument("--disable-dev-shm-usage")
        options.add_argument("--window-size=1400,1000")
        binary = "/usr/bin/chromium"
        if os.path.exists(binary):
            options.binary_location = binary
        driver_path = "/usr/bin/chromedriver"
        service = Service(driver_path) if os.path.exists(driver_path) else Service()
        self.driver = webdriver.Chrome(service=service, options=options)
        self.driver.set_page_load_timeout(60)
        self.step = 0

    def shot(self, name):
        self.step += 1
        path = os.path.join(SHOTS, "%02d-%s.png" % (self.step, name))
        self.driver.save_screenshot(path)
        print("screenshot", path, flush=True)

    def wait(self, condition, timeout=WAIT, message="condition"):
        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.1).until(condition)
        except TimeoutException:
            self.shot("timeout")
            status = self.driver.find_elements(By.ID, "status")
            raise Failure("timed out waiting for %s (status line: %r)" % (message, status[0].text if status else None))

    def css(self, selector, timeout=WAIT):
        return self.wait(EC.presence_of_element_located((By.CSS_SELECTOR, selector)), timeout, selector)

    def visible(self, selector, timeout=WAIT):
        return self.wait(EC.visibility_of_element_located((By.CSS_SELECTOR, selector)), timeout, selector)

    def click(self, selector, double=False):
        """Clicks what `selector` finds, again if the page re-rendered it in between. The element is brought to the
        middle of the window first: scrolled only as far as needed, it can sit under the fixed status line."""
        for _ in range(20):
            try:
                element = self.css(selector)
                self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
                if double:
                    webdriver.ActionChains(self.driver).double_click(element).perform()
                else:
                    element.click()
                return
            except (StaleElementReferenceException, ElementClickInterceptedException):
                time.sleep(0.1)
        raise Failure("%s kept changing or stayed covered under the click" % selector)

    def press(self, element):
        """Clicks an element found already, brought to the middle of the window first (see `click`)."""
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
        element.click()

    def text(self, selector):
        for _ in range(20):
            try:
                return self.css(selector).text
            except StaleElementReferenceException:
                time.sleep(0.1)
        raise Failure("%s kept changing" % selector)

    def go(self, fragment):
        self.driver.execute_script("location.hash = arguments[0]", fragment)

    def column_texts(self, field):
        return self.driver.execute_script(
            "return [...document.querySelectorAll('#rows tbody td[data-field=\"' + arguments[0] + '\"]')].map(td => td.textContent)",
            field)

    @staticmethod
    def cell(object_id, field):
        return '#rows td[data-object-id="%s"][data-field="%s"]' % (object_id, field)

    def status_text(self):
        return self.driver.find_element(By.ID, "status").text

    def run(self):
        for name in ("Cat", "WallPost", "BigCat"):
            remove_class(name)
        self.log_in()
        self.add_and_remove()
        self.create_cat()
        self.import_cats()
        self.sort_by_votes()
        self.filter_and_delete()
        self.edit_a_name()
        self.see_a_vote()
        self.live_rows()
        self.forged_request()
        self.permissions()
        self.export()
        self.analytics()
        self.photo_wall()
        self.push()
        self.config()
        self.relations()
        self.cloud_code()
        self.logs()
        self.api_console()
        self.graphql_console()
        self.settings()
        self.apps()
        self.large_class()
        self.log_out()

    def log_in(self):
        self.driver.get(DASHBOARD)
        self.visible("#login-master-key")
        self.shot("login")
        self.driver.find_element(By.ID, "login-master-key").send_keys("not the master key")
        self.press(self.driver.find_element(By.ID, "login-submit"))
        error = self.wait(lambda d: d.find_element(By.ID, "login-error").text or None, message="login error")
        check("Invalid master key" in error, "a wrong master key is refused: %r" % error)
        check(not self.driver.find_element(By.ID, "app").is_displayed(), "no dashboard without a login")
        self.shot("wrong-master-key")
        field = self.driver.find_element(By.ID, "login-master-key")
        field.clear()
        field.send_keys(MASTER_KEY)
        self.press(self.driver.find_element(By.ID, "login-submit"))
        self.visible("#classes")
        cookies = {cookie["name"]: cookie for cookie in self.driver.get_cookies()}
        session = cookies.get("parse_dashboard_session")
        check(session is not None and session.get("httpOnly") and session.get("sameSite") == "Strict",
              "the login is an HttpOnly, SameSite=Strict cookie")
        page = self.driver.page_source + json.dumps(self.driver.execute_script("return {...localStorage, ...sessionStorage}"))
        check(MASTER_KEY not in page, "the master key is nowhere in the page or the browser's storage")
        check(self.driver.execute_script("return document.cookie").find("parse_dashboard_session") < 0,
              "scripts cannot read the session cookie")
        self.css('#classes a[data-class-name="_User"]')
        self.css('#classes a[data-class-name="_Role"]')
        check(True, "the class list shows _User and _Role")
        self.shot("logged-in")

    def add_and_remove(self):
        """A class and a column added, then deleted again, through the page."""
        remove_class("Doomed")
        self.driver.find_element(By.ID, "new-class-name").send_keys("Doomed")
        self.click("#new-class-submit")
        self.css('#rows[data-class-name="Doomed"]')
        self.css("#add-column-name").send_keys("spare")
        Select(self.css("#add-column-type")).select_by_value("Pointer")
        self.visible("#add-column-target").send_keys("Cat")
        self.click("#add-column-submit")
        self.css('#rows th[data-field="spare"]')
        status, schema = rest("GET", "/schemas/Doomed")
        check(schema["fields"].get("spare") == {"type": "Pointer", "targetClass": "Cat"}, "a Pointer<Cat> column is added")
        Select(self.css("#delete-column")).select_by_value("spare")
        self.click("#delete-column-submit")
        self.wait(EC.alert_is_present(), message="the confirmation").accept()
        self.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, '#rows th[data-field="spare"]'), message="the column gone")
        status, schema = rest("GET", "/schemas/Doomed")
        check("spare" not in schema["fields"], "and removed again")
        self.click("#add-row")
        self.wait(lambda d: len(self.column_texts("objectId")) == 1, message="the added row")
        self.click("#delete-class")
        self.wait(EC.alert_is_present(), message="the confirmation").accept()
        self.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, '#classes a[data-class-name="Doomed"]'), message="the class gone")
        status, answer = rest("GET", "/schemas/Doomed")
        check(answer.get("code") == 103, "a class with a row is deleted from the page")

    def create_cat(self):
        self.driver.find_element(By.ID, "new-class-name").send_keys("Cat")
        self.press(self.driver.find_element(By.ID, "new-class-submit"))
        self.css('#rows[data-class-name="Cat"]')
        self.shot("cat-created")
        for name, kind in (("name", "String"), ("votes", "Number"), ("url", "String"), ("cc_by", "String")):
            self.driver.find_element(By.ID, "add-column-name").send_keys(name)
            Select(self.driver.find_element(By.ID, "add-column-type")).select_by_value(kind)
            self.press(self.driver.find_element(By.ID, "add-column-submit"))
            self.css('#rows th[data-field="%s"]' % name)
        status, schema = rest("GET", "/schemas/Cat")
        fields = schema.get("fields", {}) if isinstance(schema, dict) else {}
        check(all(fields.get(name, {}).get("type") == kind for name, kind in
                  (("name", "String"), ("votes", "Number"), ("url", "String"), ("cc_by", "String"))),
              "Cat has name String, votes Number, url String, cc_by String")
        self.shot("columns-added")

    def import_cats(self):
        expected = len(json.load(open(FIXTURE))["results"])
        self.driver.find_element(By.ID, "import-file").send_keys(os.path.abspath(FIXTURE))
        summary = self.wait(lambda d: (d.find_elements(By.ID, "import-summary") or [None])[0], message="import summary").text
        check("Imported %d of %d" % (expected, expected) in summary and "0 refused" in summary,
              "Cat.json imported: %s" % summary)
        self.wait(lambda d: len(self.column_texts("name")) == expected, message="the imported rows")
        self.shot("cats-imported")
        # A second file with a row of the wrong type: the report names it.
        bad = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        json.dump({"results": [{"name": "Garfield", "votes": 2}, {"name": "Felix", "votes": "many"}]}, bad)
        bad.close()
        self.driver.find_element(By.ID, "import-file").send_keys(bad.name)
        summary = self.wait(lambda d: (lambda e: e and "of 2" in e[0].text and e[0])(d.find_elements(By.ID, "import-summary")),
                            message="second import summary").text
        refused = self.css("#import-refused tbody tr").text
        check("Imported 1 of 2" in summary and "1 refused" in summary and "111" in refused,
              "a row of the wrong type is refused and reported: %s / %s" % (summary, refused))
        self.shot("import-refused-report")

    def sort_by_votes(self):
        self.click("#refresh")
        self.click('#rows th[data-field="votes"]')
        self.wait(lambda d: "▲" in self.text('#rows th[data-field="votes"]'), message="ascending sort")
        votes = [float(v) for v in self.column_texts("votes")]
        check(votes == sorted(votes) and len(votes) >= 6, "sorted by votes ascending: %s" % votes)
        self.click('#rows th[data-field="votes"]')
        self.wait(lambda d: "▼" in self.text('#rows th[data-field="votes"]'), message="descending sort")
        votes = [float(v) for v in self.column_texts("votes")]
        check(votes == sorted(votes, reverse=True), "sorted by votes descending: %s" % votes)
        self.shot("sorted-by-votes")

    def filter_and_delete(self):
        Select(self.css("#filter-field")).select_by_value("name")
        Select(self.css("#filter-op")).select_by_value("contains")
        self.css("#filter-value").send_keys("Fel")
        self.click("#filter-apply")
        self.wait(lambda d: self.column_texts("name") == ["Felix"] or self.column_texts("name") == [], message="the filter")
        check(self.column_texts("name") == [], "no Felix: the refused row was not stored")
        self.css("#filter-value").clear()
        self.css("#filter-value").send_keys("Gar")
        self.click("#filter-apply")
        self.wait(lambda d: self.column_texts("name") == ["Garfield"], message="the filter on name")
        check(True, "the filter on name finds Garfield alone")
        self.shot("filtered")
        self.click("#rows tbody .row-select")
        self.click("#delete-rows")
        self.wait(EC.alert_is_present(), message="the confirmation").accept()
        self.wait(lambda d: self.column_texts("name") == [], message="the deleted row")
        status, answer = rest("GET", "/classes/Cat?where=" + urllib.parse.quote('{"name":"Garfield"}'))
        check(answer["results"] == [], "the selected row is deleted")
        self.click("#filter-clear")
        self.wait(lambda d: len(self.column_texts("name")) == 6, message="every Cat again")
        # Two conditions, all of them and then any of them.
        Select(self.css("#filter-field")).select_by_value("votes")
        Select(self.css("#filter-op")).select_by_value("gte")
        self.css("#filter-value").clear()
        self.css("#filter-value").send_keys("10")
        self.click("#filter-add")
        Select(self.css("#filter-field")).select_by_value("name")
        Select(self.css("#filter-op")).select_by_value("starts with")
        self.css("#filter-value").send_keys("N")
        self.click("#filter-apply")
        self.wait(lambda d: self.column_texts("name") == ["Nala"], message="votes >= 10 and a name starting with N")
        Select(self.css("#filter-mode")).select_by_value("$or")
        self.click("#filter-apply")
        self.wait(lambda d: sorted(self.column_texts("name")) == ["Luna", "Nala"], message="votes >= 10 or a name starting with N")
        check(True, "filters of several conditions, all of them or any of them")
        self.click("#filter-clear")
        self.wait(lambda d: len(self.column_texts("name")) == 6, message="every Cat again")

    def edit_a_name(self):
        self.click(self.cell("Cat0000001", "name"), double=True)
        editor = self.css('#rows td[data-object-id="Cat0000001"][data-field="name"] .cell-editor')
        editor.send_keys(Keys.CONTROL, "a")
        editor.send_keys("Tom the Cat", Keys.ENTER)
        self.wait(lambda d: self.text(self.cell("Cat0000001", "name")) == "Tom the Cat", message="the edited name")
        status, cat = rest("GET", "/classes/Cat/Cat0000001")
        check(cat.get("name") == "Tom the Cat", "the edited name is stored")
        self.shot("name-edited")
        self.click(self.cell("Cat0000002", "votes"), double=True)
        editor = self.css('#rows td[data-object-id="Cat0000002"][data-field="votes"] .cell-editor')
        editor.send_keys(Keys.CONTROL, "a")
        editor.send_keys("lots", Keys.ENTER)
        self.css('#rows td[data-object-id="Cat0000002"] .cell-editor.invalid')
        check("votes must be a number" in self.status_text(), "a word in a Number cell is refused before sending")
        status, cat = rest("GET", "/classes/Cat/Cat0000002")
        check(cat.get("votes") == 12, "the refused edit changed nothing")
        self.shot("type-check")
        editor.send_keys(Keys.ESCAPE)

    def see_a_vote(self):
        before = float(self.text(self.cell("Cat0000003", "votes")))
        live = self.driver.find_element(By.ID, "live-state").text
        status, answer = rest("PUT", "/classes/Cat/Cat0000003", {"votes": {"__op": "Increment", "amount": 1}}, master=False)
        check(status == 200 and answer.get("votes") == before + 1, "a vote through the REST API: %s" % answer)
        self.wait(lambda d: float(self.text(self.cell("Cat0000003", "votes"))) == before + 1, timeout=20,
                  message="the vote on screen")
        check(True, "the vote appears in the browser without a reload (%s)" % (live or "refresh"))
        self.shot("vote-appeared")

    def row_count(self):
        return int(self.driver.find_element(By.ID, "pager").get_attribute("data-count") or 0)

    def wait_for_count(self, count, what, timeout=2):
        started = time.monotonic()
        self.wait(lambda d: self.row_count() == count, timeout=timeout, message=what)
        return time.monotonic() - started

    def live_rows(self):
        """Rows created and deleted through the REST API appear and go in the open page; with the LiveQuery
        service stopped the page says it is not live, and once the service is back it is live again."""
        self.wait(lambda d: self.text("#live-state") == "live", message="the live state")
        before = self.row_count()
        status, created = rest("POST", "/classes/Cat", {"name": "Live cat", "votes": 0}, master=False)
        check(status == 201, "a cat created through the REST API: %s" % created)
        took = self.wait_for_count(before + 1, "the created row counted")
        check(True, "the page counts the new row %.2f s after the API answered" % took)
        rest("DELETE", "/classes/Cat/" + created["objectId"], master=False)
        took = self.wait_for_count(before, "the deleted row gone")
        check(True, "and no longer counts it %.2f s after its delete" % took)
        stack = [os.environ.get("PARSE_TEST_STACK", "deploy/stack")]
        subprocess.run(["/bin/bash"] + stack + ["stop-service", "live"], check=True)
        try:
            self.wait(lambda d: self.text("#live-state").startswith("not live"), timeout=15, message="the page to say it is not live")
            check(True, "with live stopped the page says: %s" % self.text("#live-state"))
            self.shot("not-live")
        finally:
            subprocess.run(["/bin/bash"] + stack + ["start-service", "live"], check=True)
        self.wait(lambda d: self.text("#live-state") == "live", timeout=45, message="the page to be live again")
        status, created = rest("POST", "/classes/Cat", {"name": "Back again", "votes": 0}, master=False)
        took = self.wait_for_count(before + 1, "a row created after the reconnect")
        check(True, "live again after the service came back; a new row counted %.2f s after its create" % took)
        rest("DELETE", "/classes/Cat/" + created["objectId"], master=False)
        self.wait_for_count(before, "the second row gone")

    def forged_request(self):
        """A page of another origin (another port) posts a form and calls fetch at the API with the browser's cookie."""
        evil = """<!doctype html><html><body>
<form id="f" method="POST" enctype="text/plain" action="%(server)s/schemas/Forged">
<input name='{"className":"Forged","_ApplicationId":"%(app)s","x":"' value='"}'></form>
<script>
fetch('%(server)s/schemas/ForgedToo', {method: 'POST', credentials: 'include', mode: 'no-cors',
  headers: {'Content-Type': 'text/plain'}, body: JSON.stringify({className: 'ForgedToo', _ApplicationId: '%(app)s'})})
  .finally(() => document.getElementById('f').submit());
</script></body></html>""" % {"server": SERVER, "app": APP_ID}

        class Page(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                self.wfile.write(evil.encode())

            def log_message(self, *args):
                pass

        server = http.server.HTTPServer(("127.0.0.1", 0), Page)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.driver.get("http://127.0.0.1:%d/" % server.server_port)
        self.wait(lambda d: "/schemas/Forged" in d.current_url, message="the forged form to be posted")
        self.shot("forged-request-answer")
        server.shutdown()
        for name in ("Forged", "ForgedToo"):
            status, answer = rest("GET", "/schemas/" + name)
            check(status == 400 and answer.get("code") == 103, "the forged cross-origin request created no class %s" % name)
        # A fetch from another origin that guesses the CSRF header is stopped by CORS before it is sent.
        self.driver.get(DASHBOARD)
        self.visible("#classes")

    def permissions(self):
        rest("PUT", "/schemas/Cat", {"className": "Cat", "fields": {"owner": {"type": "Pointer", "targetClass": "_User"}}})
        self.go("#/core/Cat")
        self.css('#rows[data-class-name="Cat"] tbody tr')
        self.press(self.driver.find_element(By.ID, "security"))
        box = self.visible("#clp-delete-public")
        if box.is_selected():
            self.press(box)
        self.driver.find_element(By.ID, "clp-delete-keys").send_keys("role:Moderators")
        self.driver.find_element(By.ID, "clp-update-pointers").send_keys("owner")
        self.driver.find_element(By.ID, "clp-readUserFields").send_keys("owner")
        hidden = self.driver.find_element(By.ID, "clp-protected")
        hidden.clear()
        hidden.send_keys("*: secretNote")
        self.shot("permissions-editor")
        self.press(self.driver.find_element(By.ID, "clp-save"))
        self.wait(lambda d: "Saved the permissions" in self.status_text(), message="permissions saved")
        status, schema = rest("GET", "/schemas/Cat")
        permissions = schema["classLevelPermissions"]
        check(permissions["delete"] == {"role:Moderators": True},
              "the permissions editor saved delete for role:Moderators only")
        check(permissions["update"].get("pointerFields") == ["owner"] and permissions.get("readUserFields") == ["owner"],
              "and the pointer permissions: %s" % permissions)
        check(permissions.get("protectedFields") == {"*": ["secretNote"]}, "and the protected fields: %s" % permissions)
        status, answer = rest("DELETE", "/classes/Cat/Cat0000004", master=False)
        check(status == 400 and answer.get("code") == 119, "so a client may no longer delete a Cat")

    def export(self):
        self.press(self.driver.find_element(By.ID, "export"))
        link = self.css("#export-link")
        check(link.get_attribute("download") == "Cat.json", "the export is offered as Cat.json")
        exported = self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1]; fetch(document.getElementById('export-link').href)"
            ".then(r => r.json()).then(j => done(j.results.map(o => o.name).sort()))")
        check("Tom the Cat" in exported and len(exported) == 6, "the export holds every Cat: %s" % exported)
        csv_link = self.css("#export-csv-link")
        lines = self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1]; fetch(document.getElementById('export-csv-link').href)"
            ".then(r => r.text()).then(t => done(t.trim().split('\\r\\n')))")
        check(csv_link.get_attribute("download") == "Cat.csv" and len(lines) == 7 and "name" in lines[0].split(","),
              "the export is offered as CSV too, a header and a line per Cat")
        self.shot("exported")
        self.click("#indexes-button")
        field = self.visible("#index-name")
        field.send_keys("name_1")
        Select(self.driver.find_element(By.ID, "index-fields")).select_by_value("name")
        self.click("#index-add")
        self.wait(lambda d: d.find_elements(By.CSS_SELECTOR, '#indexes tr[data-index="name_1"]'), message="the index listed")
        _, schema = rest("GET", "/schemas/Cat")
        check(schema.get("indexes", {}).get("name_1") == {"name": 1}, "an index added from the dashboard")
        self.click('#indexes tr[data-index="name_1"] .index-drop')
        self.driver.switch_to.alert.accept()
        self.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, '#indexes tr[data-index="name_1"]'), message="the index dropped")
        _, schema = rest("GET", "/schemas/Cat")
        check("name_1" not in schema.get("indexes", {}), "and dropped")
        with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as sheet:
            sheet.write('name,votes\r\n"Cat, from CSV",3\r\n')
        self.driver.find_element(By.ID, "import-file").send_keys(sheet.name)
        self.wait(lambda d: "Imported 1 of 1" in (d.find_elements(By.ID, "import-summary") or [None])[0].text
                  if d.find_elements(By.ID, "import-summary") else False, message="the CSV import's summary")
        _, found = rest("GET", "/classes/Cat?where=" + urllib.parse.quote(json.dumps({"name": "Cat, from CSV"})))
        check(len(found["results"]) == 1 and found["results"][0].get("votes") == 3,
              "a CSV file is imported, its values read by the class's field types")

    def analytics(self):
        for breed in ("tabby", "tabby", "siamese"):
            status, _ = rest("POST", "/events/CatViewed", {"dimensions": {"breed": breed}}, master=False)
            check(status == 200, "a custom event CatViewed (%s) is sent" % breed)
        status, user = rest("POST", "/users", {"username": "opener%d" % int(time.time() * 1000), "password": "pw-opener"}, master=False)
        before = rest("GET", "/analytics/active")[1]["lastDay"]
        status, _ = rest("POST", "/events/AppOpened", {}, master=False, token=user["sessionToken"])
        check(status == 200, "a signed-in user's app sends AppOpened")
        self.press(self.driver.find_element(By.CSS_SELECTOR, 'nav a[data-tab="analytics"]'))
        # The counts reach posts in the gateway's next report. Other suites restart posts while this walk runs;
        # a report sent while it is down is sent again only after the request timeout, so allow for both.
        deadline = time.time() + 90
        selector = '#requests-by-route tr[data-route="PUT /classes/:className/:objectId"][data-status="200"]'
        while time.time() < deadline:
            rows = self.driver.find_elements(By.CSS_SELECTOR, selector)
            if rows:
                break
            time.sleep(1)
            self.go("#/analytics/%d" % time.time())
        check(bool(self.driver.find_elements(By.CSS_SELECTOR, selector)), "Analytics lists the vote's route with status 200")
        routes = self.driver.execute_script(
            "return [...document.querySelectorAll('#requests-by-route tbody tr')].map(r => r.dataset.route + ' ' + r.dataset.status)")
        check("POST /batch 200" in routes and "PUT /schemas/:className 200" in routes,
              "and the import's batches and the new columns: %s" % routes[:8])
        check(bool(self.driver.find_elements(By.CSS_SELECTOR, "#requests-chart rect.bar")), "as a chart of requests per hour")
        bars = self.driver.find_elements(By.CSS_SELECTOR, '#events-chart rect.bar[data-series="CatViewed"]')
        check(sum(int(bar.get_attribute("data-count")) for bar in bars) >= 3, "the custom events are charted per hour")
        breeds = self.driver.execute_script(
            "return Object.fromEntries([...document.querySelectorAll('table[data-event=\"CatViewed\"] tbody tr')]"
            ".map(r => [r.cells[1].textContent, Number(r.cells[2].textContent)]))")
        check(breeds.get("tabby", 0) >= 2 and breeds.get("siamese", 0) >= 1, "with their dimensions: %s" % breeds)
        shown = int(self.css("#active-totals").get_attribute("data-last-day"))
        check(shown == before + 1 and self.driver.find_elements(By.CSS_SELECTOR, "#active-chart rect.bar"),
              "the user who opened the app is counted among the day's active users (%d)" % shown)
        cohort = self.driver.find_elements(By.CSS_SELECTOR, "#retention tbody tr[data-week]")
        check(cohort and sum(int(row.get_attribute("data-new")) for row in cohort) >= 1, "and in a retention cohort")
        self.shot("analytics")

    def photo_wall(self):
        username = "wall%d" % int(time.time() * 1000)
        status, user = rest("POST", "/users", {"username": username, "password": "secret123"}, master=False)
        check(status == 201, "a photo wall user signs up")
        token = user["sessionToken"]
        status, stored = rest("POST", "/files/photo.png", raw=PNG, content_type="image/png", master=False, token=token)
        check(status == 201, "the user uploads a picture")
        status, post = rest("POST", "/classes/WallPost", {
            "image": {"__type": "File", "name": stored["name"]}, "caption": "Paws on the wall",
            "user": {"__type": "Pointer", "className": "_User", "objectId": user["objectId"]},
            "ACL": {"*": {"read": True}, user["objectId"]: {"read": True, "write": True}}}, master=False, token=token)
        check(status == 201, "and posts it on the wall")
        self.go("#/core/_User")
        # Earlier tests leave more users than one page shows: find the new one as a person would, by a filter.
        self.wait(lambda d: d.find_elements(By.CSS_SELECTOR, '#filter-field option[value="username"]'),
                  message="the columns of _User")
        Select(self.css("#filter-field")).select_by_value("username")
        Select(self.css("#filter-op")).select_by_value("eq")
        self.css("#filter-value").send_keys(username)
        self.click("#filter-apply")
        self.wait(lambda d: self.column_texts("username") == [username], message="the user in _User")
        check(True, "the new user is in _User")
        self.shot("photo-wall-user")
        # The user forgot the password: the dashboard sets a new one, and the old sessions end.
        self.click('#rows .row-select[value="%s"]' % user["objectId"])
        self.click("#set-password")
        prompt = self.wait(EC.alert_is_present(), message="the password prompt")
        prompt.send_keys("newSecret456")
        prompt.accept()
        self.wait(lambda d: "Password set." in d.find_element(By.ID, "status").text, message="the password set")
        status, _ = rest("GET", "/login?username=%s&password=newSecret456" % username, master=False)
        old, _ = rest("GET", "/users/me", master=False, token=token)
        check(status == 200 and old != 200, "the dashboard sets a user's password, which ends the old sessions")
        token = rest("GET", "/login?username=%s&password=newSecret456" % username, master=False)[1]["sessionToken"]
        self.click("#filter-clear")
        self.go("#/core/WallPost")
        image = self.css('#rows td[data-field="image"] img.thumb')
        self.wait(lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", image) == 64,
                  message="the picture to load")
        check(True, "the WallPost shows its image")
        pointer = self.css('#rows td[data-field="user"] a.pointer')
        check(pointer.text == user["objectId"], "and its user as a link")
        self.shot("photo-wall-post")

    def push(self):
        rest("POST", "/installations", {"deviceType": "android", "installationId": "dash-install-1", "channels": ["cats"],
                                        "deviceToken": "token-1", "pushType": "gcm"}, master=False)
        # Core chosen and, before it has drawn, Push: only Push may be drawn.
        self.driver.execute_script("location.hash = '#/core'; setTimeout(() => { location.hash = '#/push'; }, 0)")
        self.visible("#push-form")
        time.sleep(1)
        check(not self.driver.find_elements(By.ID, "classes"), "a view left before it has drawn does not draw under the next")
        Select(self.visible("#push-audience")).select_by_value("channels")
        self.visible("#push-channels").send_keys("cats")
        self.wait(lambda d: self.text("#push-reach") == "Reaches 1 device.", message="the count of devices reached")
        check(True, "before sending, the page says the channel cats reaches 1 device")
        self.driver.find_element(By.ID, "push-alert").send_keys("A new cat on the wall")
        self.press(self.driver.find_element(By.ID, "push-send"))
        self.wait(lambda d: any("A new cat on the wall" in row.text for row in d.find_elements(By.CSS_SELECTOR, "#push-status tbody tr")),
                  message="the push in _PushStatus")
        check(True, "a push to the channel cats is sent and listed from _PushStatus")
        pushes = lambda: rest("GET", "/classes/_PushStatus?count=1&limit=0")[1]["count"]
        stored = pushes()
        # A payload that is not JSON, then one that is, sent in an hour with an expiration.
        Select(self.css("#push-format")).select_by_value("json")
        self.visible("#push-payload").send_keys('{"alert": "Dinner"')
        self.press(self.driver.find_element(By.ID, "push-send"))
        self.wait(lambda d: self.status_text() == "The payload must be JSON.", message="the payload refused")
        check(pushes() == stored, "a payload that is not JSON is refused in the page, and nothing is stored")
        self.css("#push-payload").send_keys(', "sound": "bell.caf"}')
        Select(self.css("#push-timing")).select_by_value("utc")
        due = time.strftime("%Y-%m-%dT%H:%M", time.gmtime(time.time() + 3600))
        self.driver.execute_script("arguments[0].value = arguments[1]", self.css("#push-time"), due)
        Select(self.css("#push-expiry")).select_by_value("after")
        self.css("#push-expiry-interval").send_keys("7200")
        self.press(self.driver.find_element(By.ID, "push-send"))
        self.wait(lambda d: self.status_text() == "Push scheduled.", message="the push scheduled")
        status, answer = rest("GET", "/classes/_PushStatus?order=-createdAt&limit=1")
        latest = answer["results"][0]
        check(latest["status"] == "scheduled" and latest["pushTime"].startswith(due)
              and json.loads(latest["payload"]) == {"alert": "Dinner", "sound": "bell.caf"}
              and latest.get("expiration_interval") == 7200,
              "the JSON payload is scheduled for %sZ with its expiration, as the API shows: %s" % (due, latest))
        self.wait(lambda d: d.find_element(By.CSS_SELECTOR, '#push-status tr[data-object-id="%s"]' % latest["objectId"])
                  .get_attribute("data-status") == "scheduled", message="the scheduled push listed")
        # An audience saved from a query, then chosen: the page counts what it reaches.
        Select(self.css("#push-audience")).select_by_value("where")
        self.visible("#push-where").send_keys('{"deviceType": "android", "installationId": "dash-install-1"}')
        self.css("#push-audience-name").send_keys("Walk androids")
        self.click("#push-save-audience")
        self.wait(lambda d: self.status_text() == "Audience Walk androids saved.", message="the audience saved")
        status, audiences = rest("GET", "/push_audiences")
        saved = [item for item in audiences["results"] if item["name"] == "Walk androids"]
        check(len(saved) == 1 and saved[0]["query"] == {"deviceType": "android", "installationId": "dash-install-1"},
              "the audience is stored with its query: %s" % saved)
        Select(self.css("#push-audience")).select_by_value("audience:" + saved[0]["objectId"])
        self.wait(lambda d: self.text("#push-reach") == "Reaches 1 device.", message="the audience's reach")
        check(True, "the saved audience is offered and reaches 1 device")
        # The walk's pushes, each with the status its counts say once it has finished.
        def settled(d):
            rows = [row for row in rest("GET", "/classes/_PushStatus?order=-createdAt&limit=50")[1]["results"]
                    if row["objectId"] == latest["objectId"] or "A new cat on the wall" in row["payload"]]
            return None if any(row["status"] in ("pending", "running") for row in rows) else rows
        rows = self.wait(settled, message="the pushes to finish")
        self.go("#/push")
        self.visible("#push-status")
        for row in rows:
            sent, failed = row.get("numSent", 0), row.get("numFailed", 0)
            expected = row["status"] if row["status"] != "succeeded" else (
                "failed" if failed and not sent else "partly failed" if failed else "reached no device" if not sent else "succeeded")
            shown = self.css('#push-status tr[data-object-id="%s"]' % row["objectId"]).get_attribute("data-status")
            check(shown == expected, "push %s (%s sent, %s failed) shows %r" % (row["objectId"], sent, failed, shown))
        rest("DELETE", "/push_audiences/" + saved[0]["objectId"])
        self.shot("push")

    def config(self):
        self.press(self.driver.find_element(By.CSS_SELECTOR, 'nav a[data-tab="config"]'))

        def add(name, kind, value, master_only=False):
            field = self.visible("#config-name")
            field.clear()
            field.send_keys(name)
            Select(self.driver.find_element(By.ID, "config-type")).select_by_value(kind)
            entry = self.driver.find_element(By.ID, "config-value")
            entry.clear()
            entry.send_keys(value)
            box = self.driver.find_element(By.ID, "config-master-only")
            if box.is_selected() != master_only:
                box.click()
            self.press(self.driver.find_element(By.ID, "config-save"))

        row = '#config tr[data-name="%s"]'
        add("welcome", "String", "Hello cats")
        self.wait(lambda d: "Hello cats" in d.find_element(By.CSS_SELECTOR, row % "welcome").text, message="the welcome parameter")
        add("maxCats", "Number", "seven")
        self.wait(lambda d: "Not a number." in d.find_element(By.ID, "status").text, message="a number refused")
        add("maxCats", "Number", "7", master_only=True)
        self.wait(lambda d: d.find_elements(By.CSS_SELECTOR, row % "maxCats"), message="the maxCats parameter")
        _, public = rest("GET", "/config", master=False)
        _, private = rest("GET", "/config")
        check(public["params"].get("welcome") == "Hello cats" and "maxCats" not in public["params"]
              and private["params"].get("maxCats") == 7, "Config parameters saved, one for the master key only")
        self.press(self.driver.find_element(By.CSS_SELECTOR, (row % "welcome") + " .config-delete"))
        self.driver.switch_to.alert.accept()
        self.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, row % "welcome"), message="the welcome parameter deleted")
        _, after = rest("GET", "/config")
        check("welcome" not in after["params"] and after["params"].get("maxCats") == 7, "a Config parameter deleted")
        self.shot("config")

    def relations(self):
        stamp = int(time.time() * 1000)
        _, user = rest("POST", "/users", {"username": "member%d" % stamp, "password": "pw"}, master=False)
        _, role = rest("POST", "/roles", {"name": "Moderators%d" % stamp, "ACL": {"*": {"read": True}}})
        self.go("#/core/_Role/%s" % role["objectId"])
        self.click('#rows td[data-field="users"][data-object-id="%s"]' % role["objectId"])
        self.visible("#relation-add-id").send_keys(user["objectId"])
        self.click("#relation-add")
        member = '#relation tr[data-object-id="%s"]' % user["objectId"]
        self.wait(lambda d: d.find_elements(By.CSS_SELECTOR, member), message="the user in the role's users")
        related = {"$relatedTo": {"object": {"__type": "Pointer", "className": "_Role", "objectId": role["objectId"]}, "key": "users"}}
        _, found = rest("GET", "/users?where=" + urllib.parse.quote(json.dumps(related)))
        check([item["objectId"] for item in found["results"]] == [user["objectId"]], "a role's users edited from its relation")
        self.shot("relation")
        self.click(member + " .relation-remove")
        self.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, member), message="the user removed")
        _, found = rest("GET", "/users?where=" + urllib.parse.quote(json.dumps(related)))
        check(found["results"] == [], "and removed")

    def cloud_code(self):
        self.press(self.driver.find_element(By.CSS_SELECTOR, 'nav a[data-tab="cloud"]'))
        worker = self.wait(lambda d: [row for row in d.find_elements(By.CSS_SELECTOR, "#workers tbody tr[data-queue]")
                                      if "CloudJob2" in row.find_element(By.CSS_SELECTOR, ".worker-jobs").text], message="the worker listed")[0]
        check(worker.get_attribute("data-connected") == "true",
              "the example worker is listed with its jobs, connected: %s" % worker.text.replace("\n", " "))
        self.visible("#hook-name").send_keys("dashHook")
        self.driver.find_element(By.ID, "hook-url").send_keys("https://example.com/hook")
        self.press(self.driver.find_element(By.ID, "hook-save"))
        row = '#hooks tr[data-hook="dashHook"]'
        self.wait(lambda d: d.find_elements(By.CSS_SELECTOR, row), message="the webhook listed")
        _, listed = rest("GET", "/hooks/functions")
        check(any(item.get("functionName") == "dashHook" and item.get("url") == "https://example.com/hook" for item in listed),
              "a function webhook added from the Cloud Code tab")
        self.press(self.driver.find_element(By.CSS_SELECTOR, row + " .hook-delete"))
        self.driver.switch_to.alert.accept()
        self.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, row), message="the webhook deleted")
        _, listed = rest("GET", "/hooks/functions")
        check(all(item.get("functionName") != "dashHook" for item in listed), "the webhook deleted")
        Select(self.driver.find_element(By.ID, "job-name")).select_by_value("CloudJob2")
        self.driver.find_element(By.ID, "job-params").send_keys('{"from":"dashboard"}')
        self.press(self.driver.find_element(By.ID, "job-run"))
        self.wait(lambda d: d.find_elements(By.CSS_SELECTOR, '#job-runs tbody tr:first-child[data-job="CloudJob2"][data-status="running"]'),
                  message="the job's run, running")
        self.wait(lambda d: d.find_elements(By.CSS_SELECTOR, '#job-runs tbody tr:first-child[data-job="CloudJob2"][data-status="succeeded"]'),
                  message="the job's run, succeeded, without reloading the page")
        check(True, "a job run from the Cloud Code tab, followed until it succeeded")
        self.shot("cloud-code")
        self.schedule_a_job()

    def schedule_a_job(self):
        """A schedule added (after a refused one), run by the server, edited and deleted."""
        schedules = lambda: rest("GET", "/cloud_code/jobs")[1]
        before = len(schedules())
        Select(self.css("#schedule-job")).select_by_value("CloudJob2")
        self.css("#schedule-params").send_keys('{"from":"schedule"}')
        Select(self.css("#schedule-repeat")).select_by_value("interval")
        self.click("#schedule-save")
        self.wait(lambda d: self.status_text() == "Repeat every whole number of minutes, 1 or more.", message="the schedule refused")
        check(len(schedules()) == before, "a repeat without minutes is refused in the page, and nothing is stored")
        self.css("#schedule-minutes").send_keys("60")
        self.css("#schedule-description").send_keys("hourly from the walk")
        self.click("#schedule-save")
        self.wait(lambda d: self.status_text() == "CloudJob2 scheduled.", message="the schedule stored")
        stored = [item for item in schedules() if item.get("description") == "hourly from the walk"]
        check(len(stored) == 1 and stored[0]["repeatMinutes"] == 60 and stored[0]["params"] == '{"from":"schedule"}',
              "the schedule is stored as a _JobSchedule: %s" % stored)
        schedule_id = stored[0]["objectId"]
        run = '#job-runs tbody tr[data-job="CloudJob2"][data-source="schedule"][data-status="succeeded"]'
        self.wait(lambda d: d.find_elements(By.CSS_SELECTOR, run), timeout=60, message="the scheduled run")
        _, statuses = rest("GET", "/classes/_JobStatus?order=-createdAt&limit=20")
        scheduled = [item for item in statuses["results"] if item.get("source") == "schedule" and item["jobName"] == "CloudJob2"]
        check(scheduled and scheduled[0]["params"] == {"from": "schedule"},
              "the server started the scheduled run with its parameters, and the page shows it")
        self.wait(lambda d: self.text('#schedules tr[data-schedule="%s"] .schedule-last-run' % schedule_id) != "not yet",
                  message="the schedule's last run")
        self.shot("job-schedule")
        self.click('#schedules tr[data-schedule="%s"] .schedule-edit' % schedule_id)
        description = self.css("#schedule-description")
        description.clear()
        description.send_keys("edited by the walk")
        self.click("#schedule-save")
        self.wait(lambda d: self.status_text() == "Schedule saved.", message="the schedule saved")
        edited = [item for item in schedules() if item["objectId"] == schedule_id]
        check(edited and edited[0].get("description") == "edited by the walk" and edited[0]["repeatMinutes"] == 60,
              "the schedule edited: %s" % edited)
        self.click('#schedules tr[data-schedule="%s"] .schedule-delete' % schedule_id)
        self.driver.switch_to.alert.accept()
        self.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, '#schedules tr[data-schedule="%s"]' % schedule_id),
                  message="the schedule deleted")
        check(all(item["objectId"] != schedule_id for item in schedules()), "and deleted")

    def logs(self):
        marker = "dashlog%d" % int(time.time() * 1000)
        rest("GET", "/classes/Cat?where=" + urllib.parse.quote(json.dumps({"name": marker})), master=False)
        self.press(self.driver.find_element(By.CSS_SELECTOR, 'nav a[data-tab="logs"]'))
        self.visible("#logs-search").send_keys(marker)
        self.wait(lambda d: any(marker in row.text for row in d.find_elements(By.CSS_SELECTOR, "#logs tbody tr")),
                  message="the request's access line in the Logs tab")
        rows = self.driver.find_elements(By.CSS_SELECTOR, "#logs tbody tr")
        check(all(marker in row.text for row in rows), "the Logs tab shows the server's lines, narrowed by a search")
        self.shot("logs")

    def settings(self):
        """Settings: the keys, the master key only once asked for, and the whole app as one ZIP archive."""
        self.go("#/settings")
        value = lambda key: self.text('#keys tr[data-key="%s"] .key-value' % key)
        self.wait(lambda d: value("applicationId") == APP_ID, message="the application id")
        check(all(d for d in [self.css('#keys tr[data-key="%s"]' % key) for key in ("clientKey", "javascriptKey", "restAPIKey", "dotNetKey")]),
              "Settings shows the application id %s and a row for each client key" % APP_ID)
        check(MASTER_KEY not in self.driver.page_source and value("masterKey").startswith("hidden"),
              "the master key is not in the page until asked for")
        self.click("#show-master-key")
        self.wait(lambda d: value("masterKey") == MASTER_KEY, message="the master key shown")
        check(True, "Show reveals the master key")
        self.shot("settings")
        self.runtime_settings()
        started = time.monotonic()
        self.click("#export-app")
        link = self.css("#export-app-link", timeout=300)
        encoded = self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1]; fetch(document.getElementById('export-app-link').href)"
            ".then(r => r.arrayBuffer()).then(b => { let s = ''; for (const x of new Uint8Array(b)) s += String.fromCharCode(x);"
            " done(btoa(s)); })")
        archive = zipfile.ZipFile(io.BytesIO(base64.b64decode(encoded)))
        check(archive.testzip() is None and link.get_attribute("download").endswith("-export.zip"),
              "the export is a ZIP archive that Python's zipfile reads, made in %.1f s" % (time.monotonic() - started))
        cats = json.loads(archive.read("Cat.json"))["results"]
        _, stored = rest("GET", "/classes/Cat?count=1&limit=0")
        check(len(cats) == stored["count"] and any(cat.get("name") == "Tom the Cat" for cat in cats),
              "its Cat.json holds every Cat (%d)" % len(cats))
        lines = archive.read("Cat.csv").decode().strip().split("\r\n")
        check(len(lines) == len(cats) + 1 and "name" in lines[0].split(","), "its Cat.csv a header and a line per Cat")
        classes = [item["className"] for item in json.loads(archive.read("schemas.json"))["results"]]
        check("Cat" in classes and "_User" in classes and "_User.json" in archive.namelist(),
              "with the schemas and the other classes, _User among them")
        self.shot("settings-exported")

    def apps(self):
        """"Create a new app", as the tutorials begin: its keys in Settings work for a client, the stack app's do not;
        rotated, the old keys stop working."""
        def call(app_id, key_name, key):
            request = urllib.request.Request(SERVER + "/classes/Cat", method="GET")
            request.add_header("X-Parse-Application-Id", app_id)
            request.add_header(key_name, key)
            try:
                with urllib.request.urlopen(request, timeout=60) as response:
                    return response.status, json.loads(response.read().decode())
            except urllib.error.HTTPError as error:
                return error.code, error.read().decode()

        chosen = lambda: self.driver.execute_script(
            "const s = document.getElementById('app-switcher'); return s.options[s.selectedIndex].text")
        value = lambda key: self.text('#keys tr[data-key="%s"] .key-value' % key)
        name = "Paws%d" % int(time.time() * 1000)
        self.css("#new-app-name").send_keys(name)
        self.click("#create-app")
        self.wait(lambda d: chosen() == name and value("appName") == name, message="the new app chosen, its keys shown")
        app_id, rest_key = value("applicationId"), value("restAPIKey")
        check(app_id != APP_ID and len(rest_key) == 40, "Create a new app made %s (%s) and Settings shows its keys" % (name, app_id))
        self.shot("app-created")
        status, body = call(app_id, "X-Parse-REST-API-Key", rest_key)
        check(status == 200 and body == {"results": []}, "a client with its id and REST API key reads its (empty) Cat class")
        status, _ = call(app_id, "X-Parse-Master-Key", MASTER_KEY)
        check(status == 403, "the stack app's master key does not open it (%d)" % status)
        self.go("#/core")
        self.go("#/settings")
        self.wait(lambda d: value("applicationId") == app_id, message="the keys again")
        self.click("#rotate-keys")
        self.wait(lambda d: value("applicationId") == app_id and value("restAPIKey") not in ("", rest_key), timeout=30,
                  message="new keys")
        new_key = value("restAPIKey")
        check(call(app_id, "X-Parse-REST-API-Key", rest_key)[0] == 403 and call(app_id, "X-Parse-REST-API-Key", new_key)[0] == 200,
              "Rotate keys: the old REST API key is refused, the new one works")
        # The data browser's live rows and the GraphQL console act on the chosen app.
        def app_call(method, path, body=None):
            request = urllib.request.Request(SERVER + path, method=method, data=json.dumps(body).encode() if body else None)
            for header, key in (("X-Parse-Application-Id", app_id), ("X-Parse-REST-API-Key", new_key),
                                ("Content-Type", "application/json")):
                request.add_header(header, key)
            with urllib.request.urlopen(request, timeout=60) as response:
                return json.loads(response.read().decode())
        app_call("POST", "/classes/Cat", {"name": "App cat"})
        self.go("#/core/Cat")
        self.wait(lambda d: self.text("#live-state") == "live" and self.row_count() == 1, timeout=30, message="the app's Cat rows, live")
        app_call("POST", "/classes/Cat", {"name": "Second app cat"})
        took = self.wait_for_count(2, "the app's new row counted", timeout=10)
        check(True, "the data browser shows the app's rows and is live for it: a new row counted %.2f s after its create" % took)
        self.press(self.driver.find_element(By.CSS_SELECTOR, 'nav a[data-tab="graphql"]'))
        self.wait(lambda d: d.find_element(By.ID, "graphql-doc-title").text.startswith("Query"), message="the app's schema docs")
        self.driver.find_element(By.ID, "graphql-query").send_keys("{ cats { count } }")
        self.press(self.driver.find_element(By.ID, "graphql-run"))
        self.wait(lambda d: d.find_element(By.ID, "graphql-answer").text != "", message="the app's GraphQL answer")
        answer = json.loads(self.driver.find_element(By.ID, "graphql-answer").text)
        check(answer.get("data", {}).get("cats", {}).get("count") == 2, "the GraphQL console counts the app's two cats: %s" % answer)
        self.go("#/settings")
        self.wait(lambda d: value("applicationId") == app_id, message="the app's keys again")
        renamed = name + "Renamed"
        field = self.css("#app-name")
        field.clear()
        field.send_keys(renamed)
        self.click("#rename-app-submit")
        self.wait(lambda d: chosen() == renamed and value("appName") == renamed, timeout=30, message="the new name")
        check(value("applicationId") == app_id and call(app_id, "X-Parse-REST-API-Key", new_key)[0] == 200,
              "Rename: the switcher and Settings show the new name; the id and keys stay")
        name = renamed
        self.driver.execute_script("const s = document.getElementById('app-switcher'); s.value = arguments[0];"
                                   " s.dispatchEvent(new Event('change'));", APP_ID)
        self.wait(lambda d: value("applicationId") == APP_ID, message="the stack's app again")
        check(True, "the switcher goes back to the stack's own app")
        # Deleting it from Settings takes its name typed again.
        self.driver.execute_script("const s = document.getElementById('app-switcher'); s.value = arguments[0];"
                                   " s.dispatchEvent(new Event('change'));", app_id)
        self.go("#/settings")
        self.wait(lambda d: value("applicationId") == app_id, message="the app's settings again")
        self.css("#delete-app-confirm").send_keys("not its name")
        self.click("#delete-app-submit")
        self.wait(lambda d: "Type the app's name" in self.status_text(), message="a wrong name refused")
        check(call(app_id, "X-Parse-REST-API-Key", new_key)[0] == 200, "Delete with a wrong name is refused and the app stays")
        field = self.css("#delete-app-confirm")
        field.clear()
        field.send_keys(name)
        self.click("#delete-app-submit")
        self.wait(lambda d: chosen() != name and name not in self.driver.execute_script(
            "return [...document.getElementById('app-switcher').options].map(o => o.text).join(',')"), timeout=30,
            message="the app gone from the switcher")
        check(call(app_id, "X-Parse-REST-API-Key", new_key)[0] == 403, "Delete: the app leaves the switcher and its keys stop working")
        self.go("#/settings")
        self.wait(lambda d: value("applicationId") == APP_ID, message="the stack's app's settings")

    def runtime_settings(self):
        """A setting changed while the server runs: refused when wrong, applied to the next request, then reset."""
        settings = lambda: rest("GET", "/settings")[1]
        policy = self.css("#setting-passwordPolicy")
        policy.clear()
        policy.send_keys('{"maxPasswordHistory": 99}')
        self.click("#settings-save")
        self.wait(lambda d: "maxPasswordHistory" in self.status_text(), message="the policy refused")
        check(settings()["changed"] == [], "a password policy the server cannot take is refused in the page (%r), and nothing is stored"
              % self.status_text())
        policy.clear()
        self.click("#setting-allowClientClassCreation")
        self.click("#settings-save")
        self.wait(lambda d: self.status_text().startswith("Settings saved"), message="the setting saved")
        current = settings()
        check(current["settings"]["allowClientClassCreation"] is False and current["changed"] == ["allowClientClassCreation"],
              "client class creation switched off from the page: %s" % current["changed"])
        status, answer = rest("POST", "/classes/WalkNoSuchClass%d" % int(time.time()), {"a": 1}, master=False)
        check(status in (400, 403) and answer.get("code") == 119, "the next client request that would make a class is refused: %s" % answer)
        self.shot("runtime-settings")
        self.click('#runtime-settings tr[data-setting="allowClientClassCreation"] .setting-reset')
        self.wait(lambda d: self.status_text().endswith("back to the start-up value."), message="the setting reset")
        current = settings()
        check(current["settings"]["allowClientClassCreation"] is True and current["changed"] == [], "and back to the start-up value")

    def api_console(self):
        self.press(self.driver.find_element(By.CSS_SELECTOR, 'nav a[data-tab="console"]'))

        def send(method, path, body="", token=None):
            Select(self.visible("#console-method")).select_by_value(method)
            field = self.driver.find_element(By.ID, "console-path")
            field.clear()
            field.send_keys(path)
            Select(self.driver.find_element(By.ID, "console-as")).select_by_value("session" if token else "master")
            if token:
                entry = self.driver.find_element(By.ID, "console-token")
                entry.clear()
                entry.send_keys(token)
            text = self.driver.find_element(By.ID, "console-body")
            text.clear()
            text.send_keys(body)
            before = self.driver.find_element(By.ID, "console-answer").text
            self.press(self.driver.find_element(By.ID, "console-send"))
            self.wait(lambda d: d.find_element(By.ID, "console-answer").text != before, message="the console's answer")
            return self.driver.find_element(By.ID, "console-status").text, json.loads(self.driver.find_element(By.ID, "console-answer").text)

        status, answer = send("POST", "classes/ConsoleCat", '{"name":"Tom"}')
        check(status.startswith("201") and "objectId" in answer, "the console creates an object with the master key")
        username = "console%d" % int(time.time() * 1000)
        _, user = rest("POST", "/users", {"username": username, "password": "pw"}, master=False)
        status, answer = send("GET", "users/me", token=user["sessionToken"])
        check(status.startswith("200") and answer.get("username") == username, "the console asks as a user's session")
        status, answer = send("GET", "classes/_PushStatus", token=user["sessionToken"])
        check(status.startswith("4") and "error" in answer, "the console shows a refusal as it came")
        self.shot("api-console")

    def graphql_console(self):
        self.press(self.driver.find_element(By.CSS_SELECTOR, 'nav a[data-tab="graphql"]'))
        self.wait(lambda d: d.find_element(By.ID, "graphql-doc-title").text.startswith("Query"), message="the schema's docs")
        fields = self.driver.find_element(By.ID, "graphql-doc-fields").text
        check("health" in fields and "cats" in fields, "the GraphQL docs list the queries, the cats' among them")
        self.press(self.driver.find_element(By.CSS_SELECTOR, '#graphql-doc-fields a[data-type="CatConnection"]'))
        self.wait(lambda d: d.find_element(By.ID, "graphql-doc-title").text.startswith("CatConnection"), message="a type's docs")
        query = self.driver.find_element(By.ID, "graphql-query")
        query.send_keys("query($first: Int) { cats(first: $first, order: [votes_DESC]) { count edges { node { name votes } } } }")
        self.driver.find_element(By.ID, "graphql-variables").send_keys('{"first": 2}')
        self.press(self.driver.find_element(By.ID, "graphql-run"))
        self.wait(lambda d: d.find_element(By.ID, "graphql-answer").text != "", message="the GraphQL answer")
        answer = json.loads(self.driver.find_element(By.ID, "graphql-answer").text)
        cats = answer.get("data", {}).get("cats", {})
        check(self.driver.find_element(By.ID, "graphql-status").text.startswith("200") and len(cats.get("edges", [])) == 2
              and cats.get("count", 0) >= 2, "the GraphQL console runs a query with its variables: %s" % answer)
        self.shot("graphql-console")

    def large_class(self):
        status, answer = rest("POST", "/schemas/BigCat", {"className": "BigCat", "fields": {"name": {"type": "String"},
                                                                                           "votes": {"type": "Number"}}})
        check(status == 200, "BigCat created")
        database = os.environ.get("PARSE_TEST_DATABASE_URL", "postgres://postgres@127.0.0.1:26432/storage_test").rsplit("/", 1)[0]
        started = time.time()
        subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", database + "/parse_posts", "-c",
                        'INSERT INTO classes."BigCat" ("objectId", "createdAt", "updatedAt", name, votes) '
                        "SELECT 'big' || lpad(i::text, 8, '0'), now(), now(), 'cat ' || i, i %% 100 "
                        "FROM generate_series(1, %d) AS i; ANALYZE classes.\"BigCat\"" % LARGE_ROWS], check=True)
        print("seeded %d rows in %.1f s" % (LARGE_ROWS, time.time() - started), flush=True)
        self.go("#/core")
        self.css('#classes a[data-class-name="BigCat"]')
        started = time.time()
        self.press(self.driver.find_element(By.CSS_SELECTOR, '#classes a[data-class-name="BigCat"]'))
        table = self.css('#rows[data-class-name="BigCat"][data-loaded-ms]', timeout=60)
        wall = time.time() - started
        rows = len(self.column_texts("name"))
        check(rows == 100, "the first page of BigCat shows 100 rows")
        print("first page of a %d-row class: %s ms in the page, %.0f ms from the click as the test saw it"
              % (LARGE_ROWS, table.get_attribute("data-loaded-ms"), wall * 1000), flush=True)
        self.wait(lambda d: d.find_element(By.ID, "pager").get_attribute("data-count") == str(LARGE_ROWS), timeout=60,
                  message="the row count")
        self.shot("large-class")
        self.click("#page-next")
        self.wait(lambda d: self.text("#pager").startswith("rows 101-200 of"), message="the second page")
        check(len(self.column_texts("name")) == 100, "Next shows rows 101-200")
        remove_class("BigCat")

    def log_out(self):
        self.press(self.driver.find_element(By.ID, "logout"))
        self.visible("#login-master-key")
        self.driver.get(DASHBOARD)
        self.visible("#login-master-key")
        check(not self.driver.find_element(By.ID, "app").is_displayed(), "after logging out the dashboard asks for the key again")
        self.shot("logged-out")


def main():
    walk = Walk()
    try:
        walk.run()
    except Failure as failure:
        print("FAILED -", failure, flush=True)
        return 1
    finally:
        walk.driver.quit()
    print("dashboard walk: every step passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
