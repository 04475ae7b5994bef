-- quern results database (SQLite).
--
-- One file holds every run (default ./quern-results.db, WAL mode). The
-- console writes a run row when load starts (status 'running'), then each
-- completed interval in one transaction as it arrives, so a console crash
-- loses at most the current second; at the end it writes the per-step totals
-- and the final status. `quern runs`, `quern report` and `quern compare`
-- read only this database.
--
-- Versioning: PRAGMA user_version is the schema version. This file is the
-- list of migrations in order; the block after "-- @migration N" takes a
-- database from version N-1 to version N. Opening a database upgrades it in
-- one transaction; a database newer than the binary is refused. Never edit
-- a released migration: append a new one. The Makefile compiles this file
-- into the binary (store/schema.h; tests/unit/test_schema.c checks it).
--
-- Conventions: times are microseconds (INTEGER) since the Unix epoch (UTC)
-- or since the run's start; *_at columns repeat them as ISO 8601 UTC text
-- ("2024-05-01T12:00:00.123Z"). Latencies are microseconds. A histogram
-- BLOB is common/hist.h's hist_encode format (decode with hist_decode).
-- JSON columns hold one JSON object of string values.

-- @migration 1
-- One load test.
CREATE TABLE runs (
    id            INTEGER PRIMARY KEY,
    name          TEXT NOT NULL,            -- --name, default the script's base name
    tags          TEXT NOT NULL DEFAULT '{}', -- JSON: the --tag key=value pairs
    script        TEXT NOT NULL,            -- path of the main script as given
    script_hash   TEXT NOT NULL,            -- SHA-256 of the main script, lowercase hex
    properties    TEXT NOT NULL DEFAULT '{}', -- JSON: properties the scripts saw
    quern_version TEXT NOT NULL,
    vus           INTEGER NOT NULL,
    started_at    TEXT NOT NULL,
    started_us    INTEGER NOT NULL,
    ended_at      TEXT,                     -- NULL while running (or if the console died)
    ended_us      INTEGER,
    duration_us   INTEGER,                  -- measured length of the load, set at the end
    status        TEXT NOT NULL DEFAULT 'running'
                  CHECK (status IN ('running', 'completed', 'stopped', 'degraded', 'aborted'))
);
CREATE INDEX runs_by_name ON runs (name, id);

-- The load injectors of a run: one row per agent ("local" for a run
-- without remote agents).
CREATE TABLE agents (
    run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    agent_index INTEGER NOT NULL,
    name        TEXT NOT NULL,
    host        TEXT NOT NULL,
    workers     INTEGER NOT NULL,
    vus         INTEGER NOT NULL,
    lost        INTEGER NOT NULL DEFAULT 0,    -- 1: disconnected or died mid-run
    status      TEXT NOT NULL DEFAULT 'running', -- as the agent reported it
    requests    INTEGER NOT NULL DEFAULT 0,
    errors      INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, agent_index)
);

-- The steps the script declared, by index (the index used everywhere below).
CREATE TABLE steps (
    run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    step_index INTEGER NOT NULL,
    test_id    TEXT NOT NULL,                -- "SC-<scenario>-STEP-<n>"
    label      TEXT NOT NULL,
    scenario   TEXT NOT NULL,
    PRIMARY KEY (run_id, step_index)
);

-- One row per second of load (second 0 is the first).
CREATE TABLE intervals (
    run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    second     INTEGER NOT NULL,
    start_us   INTEGER NOT NULL,             -- wall clock, epoch microseconds
    length_us  INTEGER NOT NULL,             -- the last interval may be short
    active_vus INTEGER NOT NULL,
    PRIMARY KEY (run_id, second)
);

-- What each step did during one second; only steps with samples get a row.
-- Data from an agent that arrived after its second was written is added as
-- a further row for the same (run_id, second, step_index): readers sum the
-- counters and merge the histograms of all rows of a second.
CREATE TABLE step_intervals (
    run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    second      INTEGER NOT NULL,
    step_index  INTEGER NOT NULL,
    count       INTEGER NOT NULL,            -- samples, successes and errors
    err_tech    INTEGER NOT NULL,            -- transport, timeout, status not accepted
    err_func    INTEGER NOT NULL,            -- failed checks, script errors
    bytes_in    INTEGER NOT NULL,
    bytes_out   INTEGER NOT NULL,
    sum_dns     INTEGER NOT NULL,            -- sums of the timing phases, microseconds
    sum_connect INTEGER NOT NULL,
    sum_tls     INTEGER NOT NULL,
    sum_ttfb    INTEGER NOT NULL,
    new_conns   INTEGER NOT NULL,
    histogram   BLOB NOT NULL                -- latencies of the samples
);
CREATE INDEX step_intervals_by_second ON step_intervals (run_id, second, step_index);

-- Whole-run summary per step, written at the end of the run. Percentiles
-- come from the merged histogram (also stored), never from averages.
CREATE TABLE step_totals (
    run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    step_index  INTEGER NOT NULL,
    count       INTEGER NOT NULL,
    err_tech    INTEGER NOT NULL,
    err_func    INTEGER NOT NULL,
    bytes_in    INTEGER NOT NULL,
    bytes_out   INTEGER NOT NULL,
    sum_dns     INTEGER NOT NULL,
    sum_connect INTEGER NOT NULL,
    sum_tls     INTEGER NOT NULL,
    sum_ttfb    INTEGER NOT NULL,
    new_conns   INTEGER NOT NULL,
    tps         REAL NOT NULL,               -- count per second of the run's duration
    mean_us     REAL NOT NULL,
    min_us      INTEGER NOT NULL,
    p50_us      INTEGER NOT NULL,
    p90_us      INTEGER NOT NULL,
    p95_us      INTEGER NOT NULL,
    p99_us      INTEGER NOT NULL,
    max_us      INTEGER NOT NULL,
    histogram   BLOB NOT NULL,
    PRIMARY KEY (run_id, step_index)
);

-- Errors by step and kind, kept up to date with each interval.
CREATE TABLE errors (
    run_id       INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    step_index   INTEGER NOT NULL,
    kind         TEXT NOT NULL CHECK (kind IN ('technical', 'functional')),
    sample       TEXT NOT NULL,              -- the first message seen ('' if none)
    count        INTEGER NOT NULL,
    first_second INTEGER NOT NULL,
    last_second  INTEGER NOT NULL,
    PRIMARY KEY (run_id, step_index, kind)
);

-- Runs (iterations) and missed pacings per scenario, kept up to date with
-- each interval.
CREATE TABLE scenario_totals (
    run_id        INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    scen_index    INTEGER NOT NULL,
    name          TEXT NOT NULL,
    runs          INTEGER NOT NULL DEFAULT 0,
    missed_pacing INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, scen_index)
);
-- @migration 2
-- The verdict of each threshold of a run (--threshold, quern.threshold),
-- written once at the end of the run, in the order they were given. A
-- threshold that could not be measured (no sample, no step in its scope)
-- has a NULL measured value and failed. "limit" is a keyword of SQL: quote
-- it in queries (SELECT expr, "limit" FROM thresholds).
CREATE TABLE thresholds (
    run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    position    INTEGER NOT NULL,            -- 0-based, command-line ones first
    expr        TEXT NOT NULL,               -- "p95<500ms", "SC-X-STEP-2: p99<1s"
    source      TEXT NOT NULL,               -- "cli", or the "file:line" declaring it
    passed      INTEGER NOT NULL CHECK (passed IN (0, 1)),
    measured    REAL,                        -- in unit; NULL when not measurable
    "limit"     REAL NOT NULL,               -- in unit
    unit        TEXT NOT NULL,               -- "ms", "%", "/s" or "" (a count)
    description TEXT NOT NULL,               -- "p95 of SC-X-STEP-2 = 612.3 ms, limit < 500 ms"
    PRIMARY KEY (run_id, position)
);
-- @migration 3
-- What a run was asked to do and who runs it, kept with the run; and a
-- status for a run whose console went away. The runs table is rebuilt (its
-- status CHECK gains 'abandoned'): migrations run with foreign keys off, so
-- the rows that refer to a run are kept as they are.
--   req_duration_us, req_ramp_up_us, req_runs: --duration (0: none),
--     --ramp-up and --runs as given; vus is --vus. NULL: not recorded (a run
--     from an older quern).
--   command_line: the console's command line, shell-quoted, secrets (values
--     of secret-looking -p keys, URL passwords) replaced by ***.
--   console_host, console_pid: where the console writing the run runs.
--   updated_us: when the console last wrote the run (begin, each interval,
--     end). A 'running' row not updated for a while, or whose console's pid
--     is gone from this host, is abandoned (readers mark it so).
--   status_reason: why the run ended as it did, when something went wrong
--     ("results database: disk full"); NULL otherwise.
--   verdict, verdict_reason: the run's own verdict as the console decided it
--     ('passed' or 'failed', and the rule that decided: "3 errors, and no
--     threshold about errors"), besides the thresholds' verdicts; NULL when
--     the console recorded none (an older quern, or a run that did not end).
CREATE TABLE runs_v3 (
    id              INTEGER PRIMARY KEY,
    name            TEXT NOT NULL,
    tags            TEXT NOT NULL DEFAULT '{}',
    script          TEXT NOT NULL,
    script_hash     TEXT NOT NULL,
    properties      TEXT NOT NULL DEFAULT '{}', -- secret-looking values replaced by ***
    quern_version   TEXT NOT NULL,
    vus             INTEGER NOT NULL,
    started_at      TEXT NOT NULL,
    started_us      INTEGER NOT NULL,
    ended_at        TEXT,
    ended_us        INTEGER,
    duration_us     INTEGER,
    status          TEXT NOT NULL DEFAULT 'running'
                    CHECK (status IN ('running', 'completed', 'stopped', 'degraded', 'aborted',
                                      'abandoned')),
    req_duration_us INTEGER,
    req_ramp_up_us  INTEGER,
    req_runs        INTEGER,
    command_line    TEXT,
    console_host    TEXT,
    console_pid     INTEGER,
    updated_us      INTEGER,
    status_reason   TEXT,
    verdict         TEXT CHECK (verdict IN ('passed', 'failed')),
    verdict_reason  TEXT
);
INSERT INTO runs_v3 (id, name, tags, script, script_hash, properties, quern_version, vus,
                     started_at, started_us, ended_at, ended_us, duration_us, status)
    SELECT id, name, tags, script, script_hash, properties, quern_version, vus, started_at,
           started_us, ended_at, ended_us, duration_us, status FROM runs;
DROP TABLE runs;
ALTER TABLE runs_v3 RENAME TO runs;
CREATE INDEX runs_by_name ON runs (name, id);
-- @migration 4
-- The shape of a run's load, kept with the run.
--   req_stages: --stages as the console read it back ("3s:20,4s:20,3s:0");
--     NULL: none (--vus and --ramp-up), or a run from an older quern.
ALTER TABLE runs ADD COLUMN req_stages TEXT;

-- @migration 5
-- The open model's arrivals per scenario (--rate, --rate-stages), kept up to
-- date with each interval as runs are; 0 in the closed model and for a run
-- from an older quern.
--   arr_scheduled: arrivals due; arr_started: a run began (late ones
--   included); arr_late: started after waiting for a VU of a full pool
--   (--max-vus); arr_dropped: never started (the wait passed --max-lag, or
--   the run ended first).
ALTER TABLE scenario_totals ADD COLUMN arr_scheduled INTEGER NOT NULL DEFAULT 0;
ALTER TABLE scenario_totals ADD COLUMN arr_started INTEGER NOT NULL DEFAULT 0;
ALTER TABLE scenario_totals ADD COLUMN arr_late INTEGER NOT NULL DEFAULT 0;
ALTER TABLE scenario_totals ADD COLUMN arr_dropped INTEGER NOT NULL DEFAULT 0;

-- @migration 6
-- The system under test's resources (quern run --monitor URL): each
-- endpoint scraped once a second during the run, and its figures.
--   monitor_hosts: one row per --monitor URL, in the order given. host is
--     the URL's host:port; url is the URL, its password replaced by ***;
--     problem: NULL, or the first failure of the endpoint ("cannot scrape
--     it: Connection refused", "not Prometheus text: line 3: ...").
--   monitor_samples: one row per host, figure and second of the run
--     (second as in intervals; the figures cover the time between two
--     scrapes a second apart, and their second is the one its middle is in). metric is one of
--     cpu_user, cpu_system, cpu_iowait, cpu_steal, cpu_busy (fractions of
--     all the host's CPUs, 0..1; busy: every mode but idle and iowait),
--     load1, mem_used_bytes, net_rx_bytes_per_s, net_tx_bytes_per_s (every
--     device but lo), disk_busy (the busiest device, 0..1), or a
--     --monitor-metric selector as given (its sum; a rate per second when
--     its name ends in _total). A figure that could not be computed has no row.
CREATE TABLE monitor_hosts (
    run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    host_index INTEGER NOT NULL,
    host       TEXT NOT NULL,
    url        TEXT NOT NULL,
    problem    TEXT,
    PRIMARY KEY (run_id, host_index)
);
CREATE TABLE monitor_samples (
    run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    host_index INTEGER NOT NULL,
    metric     TEXT NOT NULL,
    second     INTEGER NOT NULL,
    value      REAL NOT NULL,
    PRIMARY KEY (run_id, host_index, metric, second)
);

-- @migration 7
-- A capacity search (quern run --capacity START:STEP:HOLD[:MAX]): its result
-- and each step of its staircase. A run without one has no row in either.
--   capacity: found is 1 when a step passed before the first failing one;
--     value is that step's load (NULL when not found), in unit: '/s'
--     (arrivals a second, the open model) or 'vus' (the closed model);
--     settle_us: the start of each step that is not judged
--     (--capacity-settle).
--   capacity_steps: one row per step judged, step from 0 in load order. Its
--     window is [t0_us, t1_us) from the run's start (runs.started_us, where
--     the intervals' second s is [s, s + 1) s), judged on the whole seconds
--     from from_us to t1_us (seconds of them); count, tps, p50_ms, p95_ms,
--     p99_ms and errors_pct are over those seconds, every script step
--     merged; passed is 0 or 1, failed the first threshold that failed with
--     its measure ("p95<200ms: p95 of all steps = 312 ms, limit < 200 ms"),
--     NULL when it passed. The search stops at the first failing step.
--   runs.req_stages holds the staircase as stages: "0s:5,2s:5,0s:10,..." in
--     VUs, "0s:50/s,2s:50/s,0s:100/s,..." in rates.
CREATE TABLE capacity (
    run_id    INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    found     INTEGER NOT NULL,
    value     REAL,
    unit      TEXT NOT NULL CHECK (unit IN ('/s', 'vus')),
    settle_us INTEGER NOT NULL
);
CREATE TABLE capacity_steps (
    run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    step       INTEGER NOT NULL,
    load       REAL NOT NULL,
    t0_us      INTEGER NOT NULL,
    t1_us      INTEGER NOT NULL,
    from_us    INTEGER NOT NULL,
    seconds    INTEGER NOT NULL,
    count      INTEGER NOT NULL,
    tps        REAL NOT NULL,
    p50_ms     REAL NOT NULL,
    p95_ms     REAL NOT NULL,
    p99_ms     REAL NOT NULL,
    errors_pct REAL NOT NULL,
    passed     INTEGER NOT NULL,
    failed     TEXT,
    PRIMARY KEY (run_id, step)
);
-- little: Little's law per second of every run (N = X * (R + Z)), every
--   scenario together, summed over workers and agents: vu_us, the VUs in the
--   system (started, not done) integrated over the second's length_us (N =
--   vu_us / length_us); runs ended in it (X = runs / length); run_us, their
--   durations summed (R = run_us / runs); wait_us, the pauses between a VU's
--   runs that ended in it (pacing, think, idle in the open model's pool)
--   summed (Z = wait_us / runs). A late sender's part is added to its row.
CREATE TABLE little (
    run_id    INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    second    INTEGER NOT NULL,
    length_us INTEGER NOT NULL,
    vu_us     INTEGER NOT NULL,
    runs      INTEGER NOT NULL,
    run_us    INTEGER NOT NULL,
    wait_us   INTEGER NOT NULL,
    PRIMARY KEY (run_id, second)
);

-- @migration 8
-- Service times beside response times (common/stats.h): a step's histogram
-- is its response times, from each sample's intended start; its service
-- times, from the actual start, are kept only where they differ (a run
-- that started late behind its arrival or its pacing slot).
--   service_histogram: the encoded service times; NULL: the same as
--   histogram (nothing was late), and for a run from an older quern.
ALTER TABLE step_intervals ADD COLUMN service_histogram BLOB;
ALTER TABLE step_totals ADD COLUMN service_histogram BLOB;
-- @migration 9
-- The HTTP requests a step sent (common/stats.h step_stats.requests): the
-- main request, each redirect and digest round trip, each resource of a
-- page (304 revalidations too; resources served from the VU's cache are
-- not requests). 0 for a run from an older quern, which did not count them.
ALTER TABLE step_intervals ADD COLUMN requests INTEGER NOT NULL DEFAULT 0;
ALTER TABLE step_totals ADD COLUMN requests INTEGER NOT NULL DEFAULT 0;
-- @migration 10
-- The load asked against the load sent. A capacity search's limit
-- and each step's injector; an open-model run's pool.
--   capacity.limited_by: what decided the search: 'injector' (the first
--     failing step's arrivals were late or dropped past the rule of
--     console/capacity_search.h: its capacity is a lower bound), 'server' (the
--     first failing step's thresholds, the injector keeping up), 'max'
--     (every step passed up to MAX), 'stopped' (the run ended before);
--     NULL for a run from an older quern.
--   capacity_steps.injector_saturated: 1 when the step was injector-limited;
--     injector: its figures then ("44872 late, 7355 dropped of 100000,
--     start lag p99 290 ms"), NULL otherwise.
--   runs.vus_peak: the most VUs the run had at a second's end (the open
--     model: the pool's peak); runs.vu_pool: --max-vus, the open model's
--     pool (NULL in the closed model and for a run from an older quern).
--   little: from here on, the open model's VUs idle in the pool are neither
--     in vu_us (not in the system) nor in wait_us.
ALTER TABLE capacity ADD COLUMN limited_by TEXT;
ALTER TABLE capacity_steps ADD COLUMN injector_saturated INTEGER NOT NULL DEFAULT 0;
ALTER TABLE capacity_steps ADD COLUMN injector TEXT;
ALTER TABLE runs ADD COLUMN vus_peak INTEGER;
ALTER TABLE runs ADD COLUMN vu_pool INTEGER;
-- @migration 11
-- The injector's own load per second (worker/selfmon.h, common/saturation.h),
-- every worker of every agent together:
--   workers: the workers that reported the second; saturated: how many of
--   them did not keep up; cpu_max_permille: the busiest one's CPU (1000 =
--   one core); lag_max_us: the worst lateness of any worker's event loop.
CREATE TABLE injector_seconds (
    run_id           INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    second           INTEGER NOT NULL,
    workers          INTEGER NOT NULL,
    saturated        INTEGER NOT NULL,
    cpu_max_permille INTEGER NOT NULL,
    lag_max_us       INTEGER NOT NULL,
    PRIMARY KEY (run_id, second)
);
-- @migration 12
-- Trace ids (--traceparent, worker/wire/traceid.h) and each step's slowest samples.
--   errors.trace_id: the W3C trace id (32 lowercase hex digits) of the
--     request of the sample message, NULL when it sent none.
--   slowest: the N slowest samples of each step over the run (--slowest,
--     default 10, common/slowest.h), written with the totals at the end:
--     rank 1 is the slowest; latency_us its response time, start_us when it
--     started (epoch), vu the VU's global index, trace_id its request's
--     trace id (NULL without --traceparent).
ALTER TABLE errors ADD COLUMN trace_id TEXT;
CREATE TABLE slowest (
    run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    step_index INTEGER NOT NULL,
    rank       INTEGER NOT NULL,
    latency_us INTEGER NOT NULL,
    start_us   INTEGER NOT NULL,
    vu         INTEGER NOT NULL,
    trace_id   TEXT,
    PRIMARY KEY (run_id, step_index, rank)
);
-- @migration 13
-- A step's WebSocket messages (common/stats.h step_stats.ws_*): messages
-- sent and received, and their payload bytes (frames' headers not
-- counted), per second and in the totals. A second in which a step only
-- exchanged messages (no sample ended) has a step_intervals row of count
-- 0. 0 for a run from an older quern, and for a step without WebSocket.
ALTER TABLE step_intervals ADD COLUMN ws_sent INTEGER NOT NULL DEFAULT 0;
ALTER TABLE step_intervals ADD COLUMN ws_recv INTEGER NOT NULL DEFAULT 0;
ALTER TABLE step_intervals ADD COLUMN ws_bytes_sent INTEGER NOT NULL DEFAULT 0;
ALTER TABLE step_intervals ADD COLUMN ws_bytes_recv INTEGER NOT NULL DEFAULT 0;
ALTER TABLE step_totals ADD COLUMN ws_sent INTEGER NOT NULL DEFAULT 0;
ALTER TABLE step_totals ADD COLUMN ws_recv INTEGER NOT NULL DEFAULT 0;
ALTER TABLE step_totals ADD COLUMN ws_bytes_sent INTEGER NOT NULL DEFAULT 0;
ALTER TABLE step_totals ADD COLUMN ws_bytes_recv INTEGER NOT NULL DEFAULT 0;
-- @migration 14
-- Errors by kind (common/errkinds.h): a kind is (class, code, message):
-- class 'technical' or 'functional'; code the HTTP status of an unaccepted
-- status, the libcurl error code of a failed transfer, else 0 (a check, a
-- script error); message folded so that one cause is one row (numbers "N",
-- ids "ID", quoted values cut). At most 32 kinds a step, the rest in one row
-- a class whose message is '(other kinds)' and code 0: the counts of a step's
-- rows of a class add up to its errors of that class.
--   error_kinds: the run's totals, written with the step totals at the end:
--     count, first_ms and last_ms (epoch milliseconds), and the example of
--     its first error: url (passwords redacted), status (0 none), body (at
--     most 200 bytes of it, redacted), trace_id (NULL without --traceparent).
--   error_kind_seconds: the count of each kind in each second (the same
--     bound, a step a second), written with each interval.
CREATE TABLE error_kinds (
    run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    step_index INTEGER NOT NULL,
    class      TEXT NOT NULL CHECK (class IN ('technical', 'functional')),
    code       INTEGER NOT NULL,
    message    TEXT NOT NULL,
    count      INTEGER NOT NULL,
    first_ms   INTEGER NOT NULL,
    last_ms    INTEGER NOT NULL,
    url        TEXT NOT NULL,
    status     INTEGER NOT NULL,
    body       TEXT NOT NULL,
    trace_id   TEXT,
    PRIMARY KEY (run_id, step_index, class, code, message)
);
CREATE TABLE error_kind_seconds (
    run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    second     INTEGER NOT NULL,
    step_index INTEGER NOT NULL,
    class      TEXT NOT NULL CHECK (class IN ('technical', 'functional')),
    code       INTEGER NOT NULL,
    message    TEXT NOT NULL,
    count      INTEGER NOT NULL,
    PRIMARY KEY (run_id, step_index, second, class, code, message)
);
-- @migration 15
-- The script's soft checks and custom metrics (common/tally.h), the run's
-- totals, written with the step totals at the end:
--   checks: one row a check name: passes and fails over the run.
--   metrics: one row a custom metric; kind 'counter', 'gauge' or 'trend';
--     a counter's total and rate (per second of the run); a gauge's value
--     (the last set), min and max; a trend's count, mean, min, p50, p90, p95,
--     p99, max, in the script's unit, and its histogram (common/hist.h
--     encoding, values in thousandths of that unit). The columns another
--     kind has are NULL.
CREATE TABLE checks (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    name   TEXT NOT NULL,
    passes INTEGER NOT NULL,
    fails  INTEGER NOT NULL,
    PRIMARY KEY (run_id, name)
);
CREATE TABLE metrics (
    run_id    INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    name      TEXT NOT NULL,
    kind      TEXT NOT NULL,
    total     REAL,
    rate      REAL,
    value     REAL,
    count     INTEGER,
    mean      REAL,
    min       REAL,
    p50       REAL,
    p90       REAL,
    p95       REAL,
    p99       REAL,
    max       REAL,
    histogram BLOB,
    PRIMARY KEY (run_id, name)
);
-- @migration 16
-- steers: the changes made to a running load from `quern ctl` (or the live
--   page), in order (seq from 1): kind 'pause' (end_us when it was resumed,
--   NULL when the run ended paused), 'vus' (value the VUs asked), 'rate'
--   (value the arrivals a second), 'stop'. at_us and end_us are from Go,
--   wall time; a pause's seconds are left out of the run's duration and
--   rates, and intervals.paused_us says how long each second was paused.
CREATE TABLE steers (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq    INTEGER NOT NULL,
    at_us  INTEGER NOT NULL,
    kind   TEXT NOT NULL,
    value  REAL,
    end_us INTEGER,
    PRIMARY KEY (run_id, seq)
);
ALTER TABLE intervals ADD COLUMN paused_us INTEGER NOT NULL DEFAULT 0;
-- @migration 17
-- regressed: what quern compare --fail-on-regression found worse in the
--   run against its baseline ("SC-X-STEP-2 (p95 +70.1%)"), NULL when it
--   found nothing or never judged it. A regressed run is never a default
--   baseline (quern compare --baseline last-passed), so that a regression
--   is not carried forward as the next build's measure.
ALTER TABLE runs ADD COLUMN regressed TEXT;
-- @migration 18
-- scenario_totals.arr_init_waits: arrivals started after waiting for a new
--   VU's init (the pool had room); arr_inits: VUs made during the load,
--   their init run then (not those of --vus, made before Go).
-- agents.vus_peak: the most VUs active on the agent in one second (after
--   any steering); agents.vus stays the VU slots it was given (the open
--   model's pool, a steered load's ceiling). NULL for an older run.
-- capacity_steps.runs_s: runs ended a second in the step's judged seconds
--   (the open model's throughput in the unit of its load, arrivals a
--   second); inits and init_waits: as above, in those seconds; NULL for a
--   search before this version.
ALTER TABLE agents ADD COLUMN vus_peak INTEGER;
ALTER TABLE scenario_totals ADD COLUMN arr_init_waits INTEGER NOT NULL DEFAULT 0;
ALTER TABLE scenario_totals ADD COLUMN arr_inits INTEGER NOT NULL DEFAULT 0;
ALTER TABLE capacity_steps ADD COLUMN runs_s REAL;
ALTER TABLE capacity_steps ADD COLUMN inits INTEGER;
ALTER TABLE capacity_steps ADD COLUMN init_waits INTEGER;
-- @migration 19
-- The server's profile (quern run --profile TARGET[@AGENT], agent/profiler.h):
--   profile_targets: one row per target and agent: ok 1 when it was profiled,
--     else error says why (no such process, not allowed, no permission);
--     procs, threads: what was found at the start; freq: on-CPU samples a
--     second of CPU time; cpus: the CPUs its processes may run on.
--   profile_stacks: each distinct stack of the run once: frames root first,
--     separated by ';', named on the profiling agent.
--   profile_samples: per target, second of the run (as in intervals), kind
--     (0: on-CPU, value in samples; 1: off-CPU, value in microseconds
--     blocked) and stack. A second keeps its 200 heaviest stacks of each
--     kind, the rest under the stack "[other]".
--   profile_seconds: per target and second, the target's threads' time
--     running (on_us), blocked (off_us), preempted and waiting for a CPU
--     (runnable_us), in microseconds; threads seen; records the kernel lost.
CREATE TABLE profile_targets (
    run_id  INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    target  TEXT NOT NULL,
    agent   TEXT NOT NULL,
    ok      INTEGER NOT NULL,
    error   TEXT,
    procs   INTEGER NOT NULL DEFAULT 0,
    threads INTEGER NOT NULL DEFAULT 0,
    freq    INTEGER NOT NULL DEFAULT 0,
    cpus    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, target, agent)
);
CREATE TABLE profile_stacks (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    id     INTEGER NOT NULL,
    frames TEXT NOT NULL,
    PRIMARY KEY (run_id, id)
);
CREATE TABLE profile_samples (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    target TEXT NOT NULL,
    second INTEGER NOT NULL,
    kind   INTEGER NOT NULL,
    stack  INTEGER NOT NULL,
    value  INTEGER NOT NULL,
    PRIMARY KEY (run_id, target, second, kind, stack)
);
CREATE TABLE profile_seconds (
    run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    target      TEXT NOT NULL,
    second      INTEGER NOT NULL,
    on_us       INTEGER NOT NULL,
    off_us      INTEGER NOT NULL,
    runnable_us INTEGER NOT NULL,
    threads     INTEGER NOT NULL,
    lost        INTEGER NOT NULL,
    PRIMARY KEY (run_id, target, second)
);
