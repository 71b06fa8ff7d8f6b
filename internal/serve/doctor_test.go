package serve

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDoctorRoute(t *testing.T) {
	hn := newHarness(t)
	good, _ := hn.csvPipeline("doc", 3)
	r := hn.do("POST", "/v1/doctor", writeTok, map[string]any{"config": good})
	if r.code != http.StatusOK {
		t.Fatalf("good config: %d %s", r.code, r.body)
	}
	invs := r.json(t)["invocations"].([]any)
	probes := invs[0].(map[string]any)["probes"].([]any)
	var got []string
	for _, p := range probes {
		m := p.(map[string]any)
		got = append(got, m["role"].(string)+"/"+m["name"].(string)+"="+m["status"].(string))
	}
	if strings.Join(got, " ") != "source/read=pass sink/permissions=pass" {
		t.Fatalf("probes: %v", got)
	}

	missing := strings.Replace(good, "doc.csv", "absent.csv", 1)
	r = hn.do("POST", "/v1/doctor", writeTok, map[string]any{"config": missing})
	if r.code != http.StatusUnprocessableEntity || r.errCode(t) != "unprocessable" {
		t.Fatalf("missing input: %d %s", r.code, r.body)
	}
	details := r.json(t)["error"].(map[string]any)["details"].(map[string]any)
	p0 := details["invocations"].([]any)[0].(map[string]any)["probes"].([]any)[0].(map[string]any)
	if p0["status"] != "fail" || !strings.Contains(p0["reason"].(string), filepath.Join(hn.dir, "absent.csv")) || p0["hint"] == "" {
		t.Fatalf("failed probe: %v", p0)
	}

	if r := hn.do("POST", "/v1/doctor", writeTok, map[string]any{"config": "version: 1\npipeline: {}\n"}); r.code != http.StatusUnprocessableEntity {
		t.Fatalf("invalid config: %d %s", r.code, r.body)
	}
	if r := hn.do("POST", "/v1/doctor", readTok, map[string]any{"config": good}); r.code != http.StatusForbidden {
		t.Fatalf("viewer: %d %s", r.code, r.body)
	}
}

func TestSubmitDoctorFirst(t *testing.T) {
	hn := newHarness(t)
	good, out := hn.csvPipeline("first", 2)
	m := hn.submit(map[string]any{"config": good, "doctor_first": true})
	rec := hn.wait(m["run_id"].(string))
	if rec["status"] != "completed" {
		t.Fatalf("run: %v", rec)
	}
	rep, ok := rec["doctor_report"].(map[string]any)
	if !ok || len(rep["invocations"].([]any)) != 1 {
		t.Fatalf("doctor_report: %v", rec["doctor_report"])
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}

	bad := strings.Replace(good, "first.csv", "absent.csv", 1)
	r := hn.do("POST", "/v1/runs", writeTok, map[string]any{"config": bad, "doctor_first": true})
	if r.code != http.StatusUnprocessableEntity || r.errCode(t) != "unprocessable" {
		t.Fatalf("failing probe: %d %s", r.code, r.body)
	}
	if !strings.Contains(string(r.body), `"status":"fail"`) {
		t.Fatalf("no report in details: %s", r.body)
	}
	runs := hn.do("GET", "/v1/runs", readTok, nil).json(t)["runs"].([]any)
	if len(runs) != 1 {
		t.Fatalf("the refused submission left a run: %d runs", len(runs))
	}
}
