// SPDX-License-Identifier: GPL-2.0-or-later
/* squashkit bench output: a table, JSON, CSV, and an SVG plot. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench_cmd.h"
#include "json.h"

/* Every numeric column and its decimals; the JSON keys and CSV headers are these names. */
// clang-format off
#define CELL_NUMBERS(X)                                                                            \
	X(ops_per_s, 1) X(mib_per_s, 2) X(p50_us, 1) X(p99_us, 1) X(max_us, 1) X(releases, 0)      \
	X(release_wakes, 0) X(wake_calls, 0) X(wakeups, 0) X(wakeups_per_release, 3)               \
	X(spurious_wakeups, 0) X(handoffs, 0) X(stalls, 0) X(unclaimed_free_ms, 3) X(vcsw, 0)      \
	X(ivcsw, 0) X(fills, 0) X(refills, 0) X(decompressions_per_block, 3)                       \
	X(meta_decompressions_per_block, 3) X(frag_decompressions_per_block, 3) X(hit_ratio, 4)    \
	X(errors, 0)

#define spurious_wakeups spurious
#define meta_decompressions_per_block meta_dpb
#define frag_decompressions_per_block frag_dpb
// clang-format on

static void print_json(FILE *out, const char *image, unsigned cpus, const struct bench_cell *c,
		       unsigned n)
{
	struct sqk_json j;
	unsigned i;

	sqk_json_init_file(&j, out);
	sqk_json_begin_object(&j, 0);
	sqk_json_key_string(&j, "image", image);
	sqk_json_key(&j, "machine");
	sqk_json_begin_object(&j, 0);
	sqk_json_key_uint(&j, "cpus", cpus);
	sqk_json_end_object(&j);
	sqk_json_key(&j, "cells");
	sqk_json_begin_array(&j, 0);
	for (i = 0; i < n; i++, c++) {
		sqk_json_begin_object(&j, 0);
		sqk_json_key_string(&j, "workload", sqk_workload_name(c->workload));
		sqk_json_key_string(&j, "policy", sqk_policy_name(c->policy));
		sqk_json_key_uint(&j, "threads", c->threads);
		sqk_json_key_string(&j, "decomp", c->decomp);
		sqk_json_key(&j, "cache");
		sqk_json_begin_object(&j, 0);
		sqk_json_key_uint(&j, "meta", c->meta);
		sqk_json_key_uint(&j, "frag", c->frag);
		sqk_json_key_uint(&j, "data", c->data);
		sqk_json_end_object(&j);
		sqk_json_key_uint(&j, "runs", c->runs);
#define JSON_NUM(k, d) sqk_json_key_double(&j, #k, c->k, d);
		CELL_NUMBERS(JSON_NUM)
		sqk_json_end_object(&j);
	}
	sqk_json_end_array(&j);
	sqk_json_end_object(&j);
	sqk_json_finish(&j);
}

static void print_csv(FILE *out, const struct bench_cell *c, unsigned n)
{
	unsigned i;

	fputs("workload,policy,threads,decomp,meta,frag,data,runs", out);
#define CSV_HEAD(k, d) fputs("," #k, out);
	CELL_NUMBERS(CSV_HEAD)
	fputc('\n', out);
	for (i = 0; i < n; i++, c++) {
		fprintf(out, "%s,%s,%u,%s,%u,%u,%u,%u", sqk_workload_name(c->workload),
			sqk_policy_name(c->policy), c->threads, c->decomp, c->meta, c->frag,
			c->data, c->runs);
#define CSV_NUM(k, d) fprintf(out, ",%.*f", d, c->k);
		CELL_NUMBERS(CSV_NUM)
		fputc('\n', out);
	}
}

static void print_table(FILE *out, const char *image, unsigned cpus, const struct bench_cell *c,
			unsigned n)
{
	unsigned i;

	fprintf(out, "image: %s   cpus: %u   medians of %u run(s) per cell\n", image, cpus,
		n ? c->runs : 0);
	fprintf(out, "%-7s %-9s %4s %10s %8s %9s %9s %9s %9s %8s %8s %10s %9s %9s %7s %6s\n",
		"work", "policy", "thr", "ops/s", "MiB/s", "p50_us", "p99_us", "max_us", "wake/rel",
		"spurious", "handoff", "unclaim_ms", "vcsw", "ivcsw", "dec/blk", "hit%");
	for (i = 0; i < n; i++, c++)
		fprintf(out,
			"%-7s %-9s %4u %10.0f %8.2f %9.1f %9.1f %9.0f %9.2f %8.0f %8.0f %10.2f "
			"%9.0f %9.0f %7.2f %6.1f\n",
			sqk_workload_name(c->workload), sqk_policy_name(c->policy), c->threads,
			c->ops_per_s, c->mib_per_s, c->p50_us, c->p99_us, c->max_us,
			c->wakeups_per_release, c->spurious, c->handoffs, c->unclaimed_free_ms,
			c->vcsw, c->ivcsw, c->decompressions_per_block, 100.0 * c->hit_ratio);
}

void bench_print(FILE *out, enum bench_format fmt, const char *image, unsigned cpus,
		 const struct bench_cell *cells, unsigned n)
{
	switch (fmt) {
	case FMT_JSON:
		print_json(out, image, cpus, cells, n);
		break;
	case FMT_CSV:
		print_csv(out, cells, n);
		break;
	default:
		print_table(out, image, cpus, cells, n);
		break;
	}
}

/* ---- the plot ---- */

static const char *const colours[] = {"#d62728", "#ff7f0e", "#1f77b4"}; /* herd, excl, keyed */

#define PW 420 /* panel width and height, in pixels */
#define PH 280
#define ML 70 /* margins: left, top, bottom */
#define MT 50
#define MB 50

struct axis {
	double xmin, xmax, ymax;
};

static double px(const struct axis *a, double threads, int panel)
{
	double span = log2(a->xmax) - log2(a->xmin);
	double t = span > 0 ? (log2(threads) - log2(a->xmin)) / span : 0.5;

	return panel * (PW + ML + 30) + ML + t * PW;
}

static double py(const struct axis *a, double v)
{
	return MT + PH - (a->ymax > 0 ? v / a->ymax : 0) * PH;
}

static double nice_max(double v)
{
	double p = pow(10, floor(log10(v > 0 ? v : 1)));

	for (double m = 1; m <= 10; m += 1)
		if (m * p >= v)
			return m * p;
	return 10 * p;
}

static void panel(FILE *f, const struct bench_cell *c, unsigned n, enum sqk_workload wl, int which,
		  const char *title)
{
	struct axis a = {1e9, 0, 0};
	unsigned i, p, t;

	for (i = 0; i < n; i++) {
		double v = which ? c[i].wakeups_per_release : c[i].ops_per_s;

		if (c[i].workload != wl)
			continue;
		if (c[i].threads < a.xmin)
			a.xmin = c[i].threads;
		if (c[i].threads > a.xmax)
			a.xmax = c[i].threads;
		if (v > a.ymax)
			a.ymax = v;
	}
	a.ymax = nice_max(a.ymax * 1.05);
	fprintf(f, "<text x='%.0f' y='%d' font-size='15' text-anchor='middle'>%s (%s)</text>\n",
		px(&a, a.xmin, which) + PW / 2.0 - (a.xmax > a.xmin ? 0 : 0), MT - 20, title,
		sqk_workload_name(wl));
	fprintf(f, "<rect x='%.0f' y='%d' width='%d' height='%d' fill='none' stroke='#888'/>\n",
		(double)(which * (PW + ML + 30) + ML), MT, PW, PH);
	for (t = 0; t <= 4; t++) {
		double v = a.ymax * t / 4;

		fprintf(f,
			"<line x1='%d' x2='%d' y1='%.1f' y2='%.1f' stroke='#ddd'/>"
			"<text x='%d' y='%.1f' font-size='11' text-anchor='end'>%g</text>\n",
			which * (PW + ML + 30) + ML, which * (PW + ML + 30) + ML + PW, py(&a, v),
			py(&a, v), which * (PW + ML + 30) + ML - 6, py(&a, v) + 4, v);
	}
	for (i = 0; i < n; i++)
		if (c[i].workload == wl && c[i].policy == SQK_POLICY_KEYED)
			fprintf(f,
				"<text x='%.1f' y='%d' font-size='11' "
				"text-anchor='middle'>%u</text>\n",
				px(&a, c[i].threads, which), MT + PH + 16, c[i].threads);
	fprintf(f, "<text x='%.0f' y='%d' font-size='12' text-anchor='middle'>threads</text>\n",
		which * (PW + ML + 30) + ML + PW / 2.0, MT + PH + 34);
	for (p = 0; p < 3; p++) {
		int first = 1;

		fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='2.5' points='",
			colours[p]);
		for (i = 0; i < n; i++) {
			if (c[i].workload != wl || c[i].policy != (enum sqk_wait_policy)p)
				continue;
			fprintf(f, "%s%.1f,%.1f", first ? "" : " ", px(&a, c[i].threads, which),
				py(&a, which ? c[i].wakeups_per_release : c[i].ops_per_s));
			first = 0;
		}
		fprintf(f, "'/>\n");
		for (i = 0; i < n; i++)
			if (c[i].workload == wl && c[i].policy == (enum sqk_wait_policy)p)
				fprintf(f, "<circle cx='%.1f' cy='%.1f' r='3.5' fill='%s'/>\n",
					px(&a, c[i].threads, which),
					py(&a, which ? c[i].wakeups_per_release : c[i].ops_per_s),
					colours[p]);
	}
}

int bench_plot(const char *path, const struct bench_cell *cells, unsigned n)
{
	enum sqk_workload seen[SQK_WL_COUNT];
	unsigned nw = 0, i, j, w, p;
	int height;
	FILE *f;

	for (i = 0; i < n; i++) {
		for (j = 0; j < nw && seen[j] != cells[i].workload; j++)
			;
		if (j == nw)
			seen[nw++] = cells[i].workload;
	}
	f = fopen(path, "w");
	if (!f)
		return -1;
	height = (int)nw * (MT + PH + MB) + 40;
	fprintf(f,
		"<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' "
		"font-family='sans-serif'>\n<rect width='100%%' height='100%%' fill='white'/>\n",
		2 * (PW + ML + 30), height);
	for (w = 0; w < nw; w++) {
		fprintf(f, "<g transform='translate(0,%d)'>\n", w * (MT + PH + MB));
		panel(f, cells, n, seen[w], 0, "throughput, ops/s");
		panel(f, cells, n, seen[w], 1, "wakeups per release");
		fprintf(f, "</g>\n");
	}
	for (p = 0; p < 3; p++)
		fprintf(f,
			"<rect x='%u' y='%d' width='14' height='4' fill='%s'/>"
			"<text x='%u' y='%d' font-size='13'>%s</text>\n",
			ML + p * 130, height - 22, colours[p], ML + p * 130 + 20, height - 16,
			sqk_policy_name((enum sqk_wait_policy)p));
	fprintf(f, "</svg>\n");
	return fclose(f) == 0 ? 0 : -1;
}
