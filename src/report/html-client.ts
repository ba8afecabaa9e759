/**
 * The inline script of index.html. Plain ES5-ish browser JavaScript (plus Promise) kept as a string so the report
 * needs no bundler. It only ever writes text through textContent, so case output cannot inject markup. Cases live in
 * chunk scripts beside the page (html-data.ts): an entry's list chunks load when its row is clicked, a case's detail
 * chunk when the case is; each chunk must announce the hash the page expects, so a stale `index.files/` is refused.
 * The case list is paged and the drill-down built on click, which keeps 100,000 cases responsive.
 */
export const CLIENT_JS = String.raw`
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('heldout-summary').textContent);
  var STATUS = data.packing.status;
  var CHUNKS = data.chunks;
  var PAGE = 200;
  var lists = {};
  var loads = {};
  var waiting = {};

  /** Called by each chunk script with its rows; settles the load that asked for it. */
  window.heldoutChunk = function (name, hash, rows) {
    var w = waiting[name];
    if (!w) return;
    delete waiting[name];
    if (w.hash !== hash) w.reject(new Error(CHUNKS.dir + '/' + name + '.js belongs to another report (rewritten since this page was?): reload the page'));
    else w.resolve(rows);
  };
  function loadChunk(ref) {
    var name = ref[0];
    if (!loads[name]) {
      loads[name] = new Promise(function (resolve, reject) {
        waiting[name] = { hash: ref[1], resolve: resolve, reject: reject };
        var s = document.createElement('script');
        s.src = CHUNKS.dir + '/' + name + '.js';
        s.onerror = function () {
          delete waiting[name];
          delete loads[name];
          reject(new Error('could not load ' + CHUNKS.dir + '/' + name + '.js: the case data sits in ' + CHUNKS.dir + '/ beside index.html'));
        };
        s.onload = function () {
          if (waiting[name]) { delete waiting[name]; delete loads[name]; reject(new Error(CHUNKS.dir + '/' + name + '.js did not hand over its rows')); }
        };
        document.head.appendChild(s);
      });
    }
    return loads[name];
  }
  function unpackRow(i, r) {
    var dims = {};
    var d = CHUNKS.entries[i].dims;
    for (var j = 0; j < d.length; j++) {
      var v = r[6][j];
      if (v) dims[d[j]] = { score: v[0], max: v[1], cap: v[2] };
    }
    var x = r[11] || {};
    var items = {};
    if (x.items) Object.keys(x.items).forEach(function (k) {
      items[k] = x.items[k].map(function (t) { return { kind: t[0], title: t[1], points: t[2], score: t[3], earned: t[4], evidence: t[5] }; });
    });
    var c = {
      id: r[0], trial: r[1], status: STATUS[r[2]], gate: r[3], result: r[4], passed: r[5] === 1,
      dimensions: dims, ceilings: r[7], wallMs: r[8], modelCalls: r[9], tokens: r[10],
      reason: x.reason === undefined ? null : x.reason, ceilingHit: !!x.ceilingHit, ceilingSet: !!x.ceilingSet,
      exitCode: x.exitCode === undefined ? null : x.exitCode, items: items, outcomes: x.outcomes || [],
      judge: x.judge || null, stderrTail: x.stderrTail || '', claimsContradicted: x.claimsContradicted || []
    };
    if (x.editing) c.editing = x.editing;
    if (x.record) c.record = x.record;
    if (x.cost) c.cost = x.cost;
    return c;
  }
  /** An entry's case list (id, trial, status, gate, result, passed, and where its detail is), loaded once. */
  function listOf(i) {
    if (!lists[i]) {
      lists[i] = Promise.all(CHUNKS.entries[i].lists.map(loadChunk)).then(function (parts) {
        var out = [];
        parts.forEach(function (rows) {
          rows.forEach(function (r) { out.push({ id: r[0], trial: r[1], status: STATUS[r[2]], gate: r[3], result: r[4], passed: r[5] === 1, chunk: r[6], pos: r[7] }); });
        });
        return out;
      });
    }
    return lists[i];
  }
  function detailOf(i, c) {
    return loadChunk(CHUNKS.entries[i].details[c.chunk]).then(function (rows) { return unpackRow(i, rows[c.pos]); });
  }
  /** The summary@2 document with every case loaded (not-run cases only counted), for anyone scripting the page. */
  window.heldoutSummary = function () {
    return Promise.all(data.commissions.map(function (e, i) {
      return Promise.all(CHUNKS.entries[i].details.map(loadChunk)).then(function (parts) {
        var cases = [];
        parts.forEach(function (rows) { rows.forEach(function (r) { cases.push(unpackRow(i, r)); }); });
        return cases;
      });
    })).then(function (all) {
      var out = JSON.parse(JSON.stringify(data));
      delete out.packing;
      delete out.chunks;
      out.commissions.forEach(function (c, i) { c.cases = all[i]; });
      return out;
    });
  };

  function el(tag, attrs, kids) {
    var n = document.createElement(tag);
    if (attrs) for (var k in attrs) {
      if (attrs[k] === null || attrs[k] === undefined) continue;
      if (k === 'text') n.textContent = String(attrs[k]);
      else if (k === 'class') n.className = attrs[k];
      else n.setAttribute(k, String(attrs[k]));
    }
    (kids || []).forEach(function (c) {
      if (c === null || c === undefined) return;
      n.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    });
    return n;
  }
  function fmt(x, d) { return x === null || x === undefined || !isFinite(x) ? '\u2014' : Number(x).toFixed(d === undefined ? 1 : d); }
  function usd(x) { return x === null ? '?' : x === 0 ? '$0' : x >= 1 ? '$' + x.toFixed(2) : '$' + x.toPrecision(3); }
  function clear(n) { while (n.firstChild) n.removeChild(n.firstChild); }

  var panel = document.getElementById('cases');
  var tbody = document.getElementById('case-rows');
  var more = document.getElementById('more-cases');
  var title = document.getElementById('cases-title');
  var filterStatus = document.getElementById('filter-status');
  var filterText = document.getElementById('filter-text');
  var drill = document.getElementById('drilldown');
  var note = document.getElementById('cases-note');
  var state = { row: -1, list: [], shown: 0, all: null, open: 0 };

  function say(text, isError) {
    note.hidden = !text;
    note.textContent = text || '';
    note.className = isError ? 'meta load-error' : 'meta';
  }
  function selectRow(i) {
    var rows = document.querySelectorAll('#summary-table tr[data-row]');
    for (var j = 0; j < rows.length; j++) rows[j].classList.toggle('selected', Number(rows[j].getAttribute('data-row')) === i);
    state.row = i;
    state.all = null;
    var e = data.commissions[i];
    title.textContent = e.id + ' \u00b7 ' + (e.delivery.label || e.delivery.path) + ' \u00b7 ' + e.split;
    panel.hidden = false;
    // The case list sits below the charts, far under the table: bring it to the top of the window.
    panel.scrollIntoView({ block: 'start' });
    panel.setAttribute('data-loading', 'true');
    drill.hidden = true;
    clear(tbody);
    more.hidden = true;
    say(CHUNKS.entries[i].cases ? 'loading ' + CHUNKS.entries[i].cases + ' cases\u2026' : '');
    listOf(i).then(function (list) {
      if (state.row !== i) return;
      state.all = list;
      say('');
      panel.removeAttribute('data-loading');
      applyFilter();
    }, function (err) {
      if (state.row !== i) return;
      panel.removeAttribute('data-loading');
      say(err.message, true);
    });
  }
  function applyFilter() {
    if (state.row < 0 || !state.all) return;
    var st = filterStatus.value;
    var q = filterText.value.toLowerCase();
    state.list = state.all.filter(function (c) {
      if (st === 'failed' && c.passed) return false;
      if (st !== 'all' && st !== 'failed' && c.status !== st) return false;
      return !q || c.id.toLowerCase().indexOf(q) >= 0;
    });
    state.shown = 0;
    clear(tbody);
    showMore();
  }
  function showMore() {
    var end = Math.min(state.list.length, state.shown + PAGE);
    var frag = document.createDocumentFragment();
    for (var k = state.shown; k < end; k++) {
      var c = state.list[k];
      var tr = el('tr', { class: 'case-row ' + (c.passed ? 'pass' : 'fail'), 'data-case': c.id, 'data-trial': c.trial, 'data-k': k, tabindex: 0 }, [
        el('td', { text: c.id }), el('td', { class: 'num', text: c.trial }), el('td', { text: c.status }),
        el('td', { text: c.gate || '' }), el('td', { class: 'num', text: fmt(c.result) }), el('td', { text: c.passed ? 'pass' : 'fail' })
      ]);
      frag.appendChild(tr);
    }
    tbody.appendChild(frag);
    state.shown = end;
    more.hidden = state.shown >= state.list.length;
    more.textContent = 'Show more (' + (state.list.length - state.shown) + ' left)';
  }

  function section(name, kids) { return el('section', { class: 'dd-section', 'data-section': name }, [el('h3', { text: name })].concat(kids)); }
  function bar(id, d) {
    var pct = d.max > 0 && d.score !== null ? Math.max(0, Math.min(100, (100 * d.score) / d.max)) : 0;
    var fill = el('div', { class: 'fill' });
    fill.style.width = pct + '%';
    var track = el('div', { class: 'track' }, [fill]);
    if (d.cap !== null && d.max > 0) {
      var cap = el('div', { class: 'cap', title: 'cap ' + d.cap });
      cap.style.left = Math.min(100, (100 * d.cap) / d.max) + '%';
      track.appendChild(cap);
    }
    return el('div', { class: 'dim', 'data-dimension': id }, [
      el('span', { class: 'dim-name', text: id }), track,
      el('span', { class: 'dim-value', text: (d.score === null ? 'unscored' : fmt(d.score)) + '/' + fmt(d.max) + (d.cap !== null ? ' (cap ' + fmt(d.cap) + ')' : '') })
    ]);
  }
  function openCase(k) {
    var brief = state.list[k];
    if (!brief) return;
    var row = state.row;
    var ticket = ++state.open;
    drill.setAttribute('data-loading', 'true');
    detailOf(row, brief).then(function (c) {
      if (ticket === state.open) showCase(data.commissions[row], c);
    }, function (err) {
      if (ticket !== state.open) return;
      clear(drill);
      drill.removeAttribute('data-loading');
      drill.appendChild(el('p', { class: 'load-error', text: err.message }));
      drill.hidden = false;
    });
  }
  function showCase(e, c) {
    clear(drill);
    drill.removeAttribute('data-loading');
    drill.setAttribute('data-case', c.id);
    drill.setAttribute('data-trial', c.trial);
    var kids = [
      el('button', { type: 'button', class: 'close', 'aria-label': 'close', text: '\u00d7' }),
      el('h2', { class: 'dd-title', text: c.id + ' #' + c.trial }),
      el('p', { class: 'dd-status', text: c.status + (c.gate ? ' \u00b7 gate ' + c.gate : '') + ' \u00b7 Result ' + fmt(c.result) + ' \u00b7 ' + (c.passed ? 'passed' : 'not passed') + ' (pass rule \u2265 ' + e.passRule.minResult + ')' })
    ];
    if (c.reason) kids.push(el('p', { class: 'dd-reason', text: c.reason }));
    kids.push(section('gates', [el('p', { class: 'dd-gate ' + (c.gate ? 'fail' : c.status === 'graded' ? 'pass' : ''), text: c.gate ? 'failed: ' + c.gate : (c.status === 'graded' ? 'all gates passed' : c.status) })]));
    var dimIds = Object.keys(c.dimensions);
    if (dimIds.length) kids.push(section('dimensions', dimIds.map(function (id) { return bar(id, c.dimensions[id]); })));
    if (c.ceilings.length) kids.push(section('ceilings', [el('ul', null, c.ceilings.map(function (x) {
      return el('li', { class: x.binding ? 'binding' : '', text: (x.kind === 'total' ? 'total' : x.dimension) + ' \u2264 ' + x.max + (x.binding ? ' (binding)' : '') + ': ' + x.reason });
    }))]));
    if (c.outcomes.length) kids.push(section('outcomes', [el('ul', null, c.outcomes.map(function (o) {
      return el('li', { class: o.satisfied === null ? '' : o.satisfied && o.safety !== false ? 'satisfied' : 'unmet', text: o.id + ': ' + (o.satisfied === null ? 'unknown' : o.satisfied ? 'satisfied' : 'unmet') + (o.safety === false ? ' (safety failure)' : '') + (o.evidence ? ' \u2014 ' + o.evidence : '') });
    }))]));
    var ev = [];
    if (c.judge) {
      ev.push(el('p', { class: 'dd-judge', text: 'judge ' + c.judge.model + (c.judge.cached ? ' (cached)' : '') + ': ' + c.judge.assessment }));
      if (c.judge.majorErrors.length) ev.push(el('ul', { class: 'major-errors' }, c.judge.majorErrors.map(function (m) { return el('li', { text: m }); })));
      if (c.judge.samples && c.judge.samples.length) ev.push(el('p', { text: 'samples: ' + c.judge.samples.join(', ') }));
    }
    Object.keys(c.items).forEach(function (d) {
      c.items[d].forEach(function (it) {
        // An item's verdict from its score share: all of its points, none, some, or not scored.
        var v = it.score === null || it.score === undefined ? 'unscored' : it.score >= 1 ? 'pass' : it.score <= 0 ? 'fail' : 'partial';
        ev.push(el('div', { class: 'item ' + v, 'data-dimension': d, 'data-verdict': v }, [
          el('strong', { text: d + ' \u00b7 ' + it.kind + ' \u00b7 ' + it.title + ' ' + fmt(it.earned) + '/' + it.points }),
          el('span', { class: 'verdict', text: v }),
          el('div', { class: 'evidence', text: it.evidence })
        ]));
      });
    });
    if (ev.length) kids.push(section('evidence', ev));
    if (c.editing) kids.push(section('editing', [
      el('p', { class: 'dd-editing', text: '\u03bc_new ' + (c.editing.muNew ? 'holds' : 'fails') + ' \u00b7 \u03bc_reg ' + (c.editing.muReg === null ? 'not run' : c.editing.muReg ? 'holds' : 'fails') }),
      c.editing.failedTests && c.editing.failedTests.length ? el('ul', { class: 'failed-tests' }, c.editing.failedTests.map(function (t) { return el('li', { text: t }); })) : null,
      c.editing.evidence ? el('div', { class: 'evidence', text: c.editing.evidence }) : null
    ]));
    if (c.claimsContradicted.length) kids.push(section('claims contradicted', [el('ul', null, c.claimsContradicted.map(function (m) { return el('li', { text: m }); }))]));
    kids.push(section('ledger', [el('p', { class: 'dd-ledger', text: 'model calls ' + c.modelCalls + ' \u00b7 tokens ' + c.tokens + ' \u00b7 wall ' + (c.wallMs / 1000).toFixed(2) + ' s \u00b7 exit ' + (c.exitCode === null ? '\u2014' : c.exitCode) })]));
    if (c.cost) kids.push(el('p', { class: 'dd-cost', text: 'cost ' + usd(c.cost.total) + ' (delivery ' + usd(c.cost.delivery) + ' \u00b7 user simulator ' + usd(c.cost.user) + ' \u00b7 judge ' + usd(c.cost.judge) + ')' + (c.cost.unpriced ? '; not in the pricing table: ' + c.cost.unpriced.join(', ') : '') }));
    if (c.stderrTail) kids.push(section('stderr', [el('pre', { class: 'stderr', text: c.stderrTail })]));
    if (c.record) kids.push(el('p', { class: 'dd-record meta', text: 'Some texts were cut to their last characters; the full record is ' + c.record + ' in the run\u2019s report directory.' }));
    kids.forEach(function (n) { drill.appendChild(n); });
    drill.hidden = false;
    drill.scrollIntoView({ block: 'nearest' });
  }

  document.getElementById('summary-table').addEventListener('click', function (ev) {
    var tr = ev.target.closest('tr[data-row]');
    if (tr) selectRow(Number(tr.getAttribute('data-row')));
  });
  tbody.addEventListener('click', function (ev) {
    var tr = ev.target.closest('tr.case-row');
    if (tr) openCase(Number(tr.getAttribute('data-k')));
  });
  document.addEventListener('keydown', function (ev) {
    if (ev.key === 'Escape') { drill.hidden = true; return; }
    if (ev.key !== 'Enter') return;
    var t = ev.target;
    if (t.matches && t.matches('tr[data-row]')) selectRow(Number(t.getAttribute('data-row')));
    else if (t.matches && t.matches('tr.case-row')) openCase(Number(t.getAttribute('data-k')));
  });
  drill.addEventListener('click', function (ev) { if (ev.target.classList.contains('close')) drill.hidden = true; });
  more.addEventListener('click', showMore);
  filterStatus.addEventListener('change', applyFilter);
  filterText.addEventListener('input', applyFilter);
  document.documentElement.setAttribute('data-ready', 'true');
})();
`;
