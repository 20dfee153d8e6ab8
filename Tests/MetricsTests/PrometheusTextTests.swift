import Testing
@testable import Metrics

@Suite struct PrometheusTextTests {
    @Test func counterNamesEndInTotalWithHelpAndTypeLines() {
        let registry = MetricsRegistry()
        let requests = registry.counter("demo_requests", help: "Requests served.", labels: ["route"])
        requests.labels("classes/:className").increment()
        requests.labels("classes/:className").increment(by: 2)
        #expect(registry.exposition() == """
            # HELP demo_requests_total Requests served.
            # TYPE demo_requests_total counter
            demo_requests_total{route="classes/:className"} 3

            """)
    }

    @Test func nameAlreadyEndingInTotalIsKept() {
        let registry = MetricsRegistry()
        registry.counter("demo_events_total", help: "Events.").labels().increment()
        #expect(registry.exposition().contains("demo_events_total 1\n"))
        #expect(!registry.exposition().contains("_total_total"))
    }

    @Test func labelValuesAreEscaped() {
        let registry = MetricsRegistry()
        registry.gauge("demo_gauge", help: "A gauge.", labels: ["path"]).labels("a\\b\"c\nd").set(1.5)
        #expect(registry.exposition().contains(#"demo_gauge{path="a\\b\"c\nd"} 1.5"# + "\n"))
    }

    @Test func helpTextEscapesBackslashAndNewlineButNotQuotes() {
        #expect(PrometheusText.escapeHelp("one\\two\nthree \"q\"") == #"one\\two\nthree "q""#)
        let registry = MetricsRegistry()
        _ = registry.gauge("demo_help", help: "line\nbreak").labels()
        #expect(registry.exposition().hasPrefix("# HELP demo_help line\\nbreak\n# TYPE demo_help gauge\n"))
    }

    @Test func histogramWritesCumulativeBucketsSumAndCount() {
        let registry = MetricsRegistry()
        let family = registry.histogram("demo_seconds", help: "Durations.", labels: ["type"], buckets: [0.1, 1])
        let histogram = family.labels("get")
        histogram.observe(0.05)
        histogram.observe(0.1)    // on a bound: counted in that bucket (`le` is "less or equal")
        histogram.observe(0.5)
        histogram.observe(3)
        #expect(registry.exposition() == """
            # HELP demo_seconds Durations.
            # TYPE demo_seconds histogram
            demo_seconds_bucket{type="get",le="0.1"} 2
            demo_seconds_bucket{type="get",le="1"} 3
            demo_seconds_bucket{type="get",le="+Inf"} 4
            demo_seconds_sum{type="get"} 3.65
            demo_seconds_count{type="get"} 4

            """)
    }

    @Test func valuesAreFormattedAsPrometheusReadsThem() {
        #expect(PrometheusText.format(3) == "3")
        #expect(PrometheusText.format(-2) == "-2")
        #expect(PrometheusText.format(0.25) == "0.25")
        #expect(PrometheusText.format(.infinity) == "+Inf")
        #expect(PrometheusText.format(-.infinity) == "-Inf")
        #expect(PrometheusText.format(.nan) == "NaN")
        #expect(Double(PrometheusText.format(1e-7)) == 1e-7)
    }

    @Test func familiesAreSortedAndSeriesSortedByLabels() {
        let registry = MetricsRegistry()
        let zeta = registry.counter("zeta", help: "Z.", labels: ["k"])
        zeta.labels("b").increment()
        zeta.labels("a").increment()
        registry.gauge("alpha", help: "A.").labels().set(7)
        let text = registry.exposition()
        let alpha = try! #require(text.range(of: "# HELP alpha"))
        let zetaHelp = try! #require(text.range(of: "# HELP zeta_total"))
        #expect(alpha.lowerBound < zetaHelp.lowerBound)
        #expect(text.contains("zeta_total{k=\"a\"} 1\nzeta_total{k=\"b\"} 1\n"))
    }

    @Test func registeringTwiceAnswersTheSameFamily() {
        let registry = MetricsRegistry()
        registry.counter("demo_twice", help: "Twice.").labels().increment()
        registry.counter("demo_twice", help: "Twice.").labels().increment()
        #expect(registry.exposition().contains("demo_twice_total 2\n"))
    }

    @Test func collectedSamplesFormTheirOwnFamilies() {
        let registry = MetricsRegistry()
        registry.collect("demo") {
            [Sample("demo_collected_bytes", help: "Bytes.", labels: [("kind", "x")], value: 10),
             Sample("demo_collected_bytes", help: "Bytes.", labels: [("kind", "y")], value: 20)]
        }
        #expect(registry.exposition() == """
            # HELP demo_collected_bytes Bytes.
            # TYPE demo_collected_bytes gauge
            demo_collected_bytes{kind="x"} 10
            demo_collected_bytes{kind="y"} 20

            """)
    }

    @Test func namesAreValidated() {
        #expect(PrometheusText.isValidMetricName("parse_http_requests_total"))
        #expect(PrometheusText.isValidMetricName("a:b_c"))
        #expect(!PrometheusText.isValidMetricName("1abc"))
        #expect(!PrometheusText.isValidMetricName("a-b"))
        #expect(PrometheusText.isValidLabelName("route"))
        #expect(!PrometheusText.isValidLabelName("__reserved"))
        #expect(!PrometheusText.isValidLabelName("a:b"))
    }

    @Test func countsFromManyTasksAddUp() async {
        let registry = MetricsRegistry()
        let counter = registry.counter("demo_parallel", help: "Parallel.").labels()
        let histogram = registry.histogram("demo_parallel_seconds", help: "Parallel.").labels()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<1_000 {
                        counter.increment()
                        histogram.observe(0.5)
                    }
                }
            }
        }
        #expect(counter.value == 8_000)
        #expect(histogram.count == 8_000)
        #expect(histogram.sum == 4_000)
    }
}
