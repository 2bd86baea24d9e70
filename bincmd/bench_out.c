// SPDX-License-Identifier: BSD-2-Clause
/* squashkit bench output: a table, JSON, CSV, and an SVG plot. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "bench_cmd.h"
#include "util/json.h"

/* Every numeric column and its decimals; the JSON keys and CSV headers are these names. */
// clang-format off
#define CELL_NUMBERS(X)                                                                            \
	X(ops_per_s, 1) X(mib_per_s, 2) X(p50_us, 1) X(p99_us, 1) X(max_us, 1) X(releases, 0)      \
	X(release_wakes, 0) X(wake_calls, 0) X(wakeups, 0) X(wakeups_per_release, 3)               \
	X(spurious_wakeups, 0) X(handoffs, 0) X(stalls, 0) X(unclaimed_free_ms, 3) X(vcsw, 0)      \
	X(ivcsw, 0) X(system_context_switches, 0) X(fills, 0) X(refills, 0)                        \
	X(decompressions_per_block, 3) X(meta_decompressions_per_block, 3)                         \
	X(frag_decompressions_per_block, 3) X(hit_ratio, 4) X(device_reads_per_op, 3)              \
	X(device_mib_per_s, 2) X(comp_cache_kib, 1) X(errors, 0) X(requests, 0) X(fetched_mib, 2)   \
	X(fetches_saved, 0) X(fetches_per_block, 3) X(step, 3) X(step_vs_kernel, 3)

#define spurious_wakeups spurious
#define meta_decompressions_per_block meta_dpb
#define frag_decompressions_per_block frag_dpb
#define system_context_switches sys_cs
#define device_reads_per_op dev_reads_per_op
#define device_mib_per_s dev_mib_per_s
// clang-format on

static void print_json(FILE *out, const struct bench_info *info, const struct bench_cell *c,
		       unsigned n)
{
	struct sqk_json j;
	unsigned i;

	sqk_json_init_file(&j, out);
	sqk_json_begin_object(&j, 0);
	sqk_json_key_string(&j, "image", info->image);
	sqk_json_key_bool(&j, "image_default", info->default_image);
	sqk_json_key_bool(&j, "cold", info->cold);
	sqk_json_key(&j, "machine");
	sqk_json_begin_object(&j, 0);
	sqk_json_key_uint(&j, "cpus", info->cpus);
	sqk_json_key(&j, "load");
	sqk_json_begin_array(&j, 0);
	for (i = 0; i < 3; i++)
		sqk_json_double(&j, info->load[i], 2);
	sqk_json_end_array(&j);
	sqk_json_end_object(&j);
	sqk_json_key(&j, "device");
	if (info->device) {
		sqk_json_begin_object(&j, 0);
		sqk_json_key_string(&j, "path", info->device);
		sqk_json_key_uint(&j, "read_iops", info->slow_iops);
		sqk_json_key_uint(&j, "read_bytes_per_s", info->slow_bps);
		sqk_json_end_object(&j);
	} else {
		sqk_json_null(&j);
	}
	sqk_json_key(&j, "cells");
	sqk_json_begin_array(&j, 0);
	for (i = 0; i < n; i++, c++) {
		int kernel = c->where == WHERE_KERNEL;

		sqk_json_begin_object(&j, 0);
		sqk_json_key_string(&j, "where", cli_bench_where_name(c->where));
		sqk_json_key_string(&j, "workload", sqk_workload_name(c->workload));
		sqk_json_key(&j, "policy");
		kernel ? sqk_json_null(&j) : sqk_json_string(&j, sqk_policy_name(c->policy));
		sqk_json_key_uint(&j, "threads", c->threads);
		sqk_json_key(&j, "decomp");
		kernel ? sqk_json_null(&j) : sqk_json_string(&j, c->decomp);
		sqk_json_key(&j, "cache");
		if (kernel) {
			sqk_json_null(&j);
		} else {
			sqk_json_begin_object(&j, 0);
			sqk_json_key_uint(&j, "meta", c->meta);
			sqk_json_key_uint(&j, "frag", c->frag);
			sqk_json_key_uint(&j, "data", c->data);
			sqk_json_key_uint(&j, "comp", c->comp);
			sqk_json_end_object(&j);
		}
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

	fputs("where,workload,policy,threads,decomp,meta,frag,data,comp,runs", out);
#define CSV_HEAD(k, d) fputs("," #k, out);
	CELL_NUMBERS(CSV_HEAD)
	fputc('\n', out);
	for (i = 0; i < n; i++, c++) {
		fprintf(out, "%s,%s,", cli_bench_where_name(c->where),
			sqk_workload_name(c->workload));
		if (c->where == WHERE_KERNEL)
			fprintf(out, ",%u,,,,,,%u", c->threads, c->runs);
		else
			fprintf(out, "%s,%u,%s,%u,%u,%u,%u,%u", sqk_policy_name(c->policy),
				c->threads, c->decomp, c->meta, c->frag, c->data, c->comp, c->runs);
			/* A figure the place cannot give is left empty. */
#define CSV_NUM(k, d)                                                                              \
	if (isnan(c->k))                                                                           \
		fputc(',', out);                                                                   \
	else                                                                                       \
		fprintf(out, ",%.*f", d, c->k);
		CELL_NUMBERS(CSV_NUM)
		fputc('\n', out);
	}
}

/*
 * The table's figures: heading, width, decimals, field, scale, whether the
 * default table has it (--wide shows them all), and what it means.
 */
static const struct column {
	const char *head;
	int width, decimals;
	size_t off;
	double scale;
	int basic;
	const char *means;
} columns[] = {
#define COL(h, w, d, f, x, b, m) {h, w, d, offsetof(struct bench_cell, f), x, b, m},
	// clang-format off
	COL("ops/s", 10, 0, ops_per_s, 1, 1, "operations per second, all threads together")
	COL("MiB/s", 8, 2, mib_per_s, 1, 1, "file data read per second")
	COL("p50_us", 9, 1, p50_us, 1, 1, "time of one operation, median, in microseconds")
	COL("p99_us", 9, 1, p99_us, 1, 1, "time of one operation, 99th percentile")
	COL("max_us", 9, 0, max_us, 1, 0, "time of the slowest operation")
	COL("wake/rel", 9, 2, wakeups_per_release, 1, 1,
	    "threads woken per cache release that woke any (herd: every waiter)")
	COL("spurious", 8, 0, spurious, 1, 0, "wakeups that found nothing to take and slept again")
	COL("handoff", 8, 0, handoffs, 1, 0,
	    "wakes passed on by a thread woken for room that shared a block instead")
	COL("unclaim_ms", 10, 2, unclaimed_free_ms, 1, 0,
	    "milliseconds a freed cache entry sat unclaimed while threads slept")
	COL("vcsw", 9, 0, vcsw, 1, 0, "voluntary context switches of the threads (waits)")
	COL("ivcsw", 9, 0, ivcsw, 1, 0, "involuntary context switches of the threads (preempted)")
	COL("sys_cs", 9, 0, sys_cs, 1, 0, "context switches of the whole machine during the run")
	COL("dec/blk", 7, 2, decompressions_per_block, 1, 1,
	    "decompressions per block decompressed (1: each block once)")
	COL("hit%", 6, 1, hit_ratio, 100, 1, "cache lookups served without a decompression of their own")
	COL("devrd/op", 9, 2, dev_reads_per_op, 1, 0, "device reads per operation")
	COL("comp_KiB", 9, 0, comp_cache_kib, 1, 0, "KiB held by the cache of compressed blocks")
	COL("requests", 8, 0, requests, 1, 2, "HTTP requests sent (an image read over HTTP)")
	COL("fetch_MiB", 9, 2, fetched_mib, 1, 2, "MiB fetched from the server")
	COL("saved", 6, 0, fetches_saved, 1, 2,
	    "fetches saved: misses that waited for another reader's fetch of their block")
	COL("fetch/blk", 9, 3, fetches_per_block, 1, 2,
	    "remote blocks fetched per distinct block read (1: each block once)")
	COL("step", 6, 2, step, 1, 0, "throughput over the same row's at the thread count before")
	COL("vs_kern", 7, 2, step_vs_kernel, 1, 0,
	    "step over the kernel's step (1: scales as the kernel does)")
	// clang-format on
};

#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

static const char *series_name(const struct bench_cell *c)
{
	return c->where == WHERE_KERNEL ? "-" : sqk_policy_name(c->policy);
}

/*
 * The shape in words, per workload: at the largest thread count, each
 * series' throughput over its own at the count before, beside the kernel's.
 */
static void print_shape(FILE *out, const struct bench_cell *c, unsigned n)
{
	unsigned i, j, top;

	for (i = 0; i < n; i++) {
		const struct bench_cell *k = NULL;

		if (c[i].where != WHERE_KERNEL || isnan(c[i].step))
			continue;
		for (top = 0, j = 0; j < n; j++)
			if (c[j].workload == c[i].workload && c[j].threads > top)
				top = c[j].threads;
		if (c[i].threads != top)
			continue;
		k = &c[i];
		fprintf(out,
			"shape of %s at %u threads (throughput over the step before): kernel %.2f",
			sqk_workload_name(k->workload), top, k->step);
		for (j = 0; j < n; j++)
			if (c[j].workload == k->workload && c[j].threads == top && j != i &&
			    !isnan(c[j].step_vs_kernel))
				fprintf(out, "; %s %s %.2f (%.2fx the kernel's)",
					cli_bench_where_name(c[j].where), series_name(&c[j]),
					c[j].step, c[j].step_vs_kernel);
		fputc('\n', out);
	}
}

/* Is col in the table? basic 1: always; 2: for an image read over HTTP; 0: with --wide. */
static int shown(const struct column *col, int wide, int remote)
{
	return col->basic == 1 || (col->basic == 2 && remote) || (wide && col->basic != 2);
}

/* What each column of the table means, and what "-" does. */
static void print_legend(FILE *out, int wide, int remote, int places)
{
	size_t k;

	fputs("columns:\n", out);
	for (k = 0; k < NCOLUMNS; k++)
		if (shown(&columns[k], wide, remote))
			fprintf(out, "  %-10s %s\n", columns[k].head, columns[k].means);
	if (places || wide)
		fputs("  -          a figure the place cannot give (the kernel's caches are out of "
		      "sight), or no thread count before\n",
		      out);
	if (!wide)
		fputs("--wide shows every column (latency maximum, wakeup details, context "
		      "switches, device reads, steps)\n",
		      out);
}

static void print_table(FILE *out, const struct bench_info *info, const struct bench_cell *c,
			unsigned n)
{
	unsigned i, places = 0;
	size_t k;

	fprintf(out,
		"image: %s   cpus: %u   load: %.2f %.2f %.2f   medians of %u run(s) per cell\n",
		info->image, info->cpus, info->load[0], info->load[1], info->load[2],
		n ? c->runs : 0);
	if (info->device) {
		fprintf(out, "device: %s, reads throttled to %llu/s", info->device,
			(unsigned long long)info->slow_iops);
		if (info->slow_bps)
			fprintf(out, " and %.1f MiB/s", (double)info->slow_bps / 1048576.0);
		fprintf(out, "; the model reads it with O_DIRECT\n");
	}
	for (i = 0; i < n; i++)
		places |= 1u << c[i].where;
	if (places & (1u << WHERE_KERNEL))
		fprintf(out, "kernel: squashfs on a loop device, with its own caches and "
			     "decompressor; its cache counters cannot be seen (-)\n");
	/* Without --cold the page cache keeps the image: a mount's runs get faster as it fills. */
	if ((places & (1u << WHERE_KERNEL | 1u << WHERE_MOUNT)) && !info->cold)
		fprintf(out, "warm: without --cold the image stays in the page cache between runs; "
			     "the kernel's and the mount's figures rise run after run as it "
			     "fills\n");
	fprintf(out, "%-6s %-8s %-9s %4s", "where", "work", "policy", "thr");
	for (k = 0; k < NCOLUMNS; k++)
		if (shown(&columns[k], info->wide, info->remote))
			fprintf(out, " %*s", columns[k].width, columns[k].head);
	fputc('\n', out);
	for (i = 0; i < n; i++, c++) {
		fprintf(out, "%-6s %-8s %-9s %4u", cli_bench_where_name(c->where),
			sqk_workload_name(c->workload), series_name(c), c->threads);
		for (k = 0; k < NCOLUMNS; k++) {
			const struct column *col = &columns[k];
			double v = *(const double *)((const char *)c + col->off);

			if (!shown(col, info->wide, info->remote))
				continue;
			if (isnan(v))
				fprintf(out, " %*s", col->width, "-");
			else
				fprintf(out, " %*.*f", col->width, col->decimals, v * col->scale);
		}
		fputc('\n', out);
	}
	print_shape(out, c - n, n);
	print_legend(out, info->wide, info->remote, places != 1u << WHERE_MODEL);
}

void cli_bench_print(FILE *out, enum bench_format fmt, const struct bench_info *info,
		     const struct bench_cell *cells, unsigned n)
{
	switch (fmt) {
	case FMT_JSON:
		print_json(out, info, cells, n);
		break;
	case FMT_CSV:
		print_csv(out, cells, n);
		break;
	default:
		print_table(out, info, cells, n);
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

/* A line of the plot: one place and, but for the kernel, one policy. */
static int in_series(const struct bench_cell *c, enum sqk_workload wl, unsigned where, unsigned pol)
{
	return c->workload == wl && c->where == (enum bench_where)where &&
	       (where == WHERE_KERNEL || c->policy == (enum sqk_wait_policy)pol);
}

static const char *colour_of(unsigned where, unsigned pol)
{
	return where == WHERE_KERNEL ? "#222222" : colours[pol];
}

/* The model's lines are solid, the mount's dashed, the kernel's black. */
static const char *dash_of(unsigned where)
{
	return where == WHERE_MOUNT ? " stroke-dasharray='7,4'" : "";
}

static double value_of(const struct bench_cell *c, int which)
{
	return which ? c->wakeups_per_release : c->ops_per_s;
}

static void panel(FILE *f, const struct bench_cell *c, unsigned n, enum sqk_workload wl, int which,
		  const char *title)
{
	struct axis a = {1e9, 0, 0};
	unsigned i, j, p, t, where;
	int x0 = which * (PW + ML + 30) + ML;

	for (i = 0; i < n; i++) {
		if (c[i].workload != wl)
			continue;
		if (c[i].threads < a.xmin)
			a.xmin = c[i].threads;
		if (c[i].threads > a.xmax)
			a.xmax = c[i].threads;
		if (!isnan(value_of(&c[i], which)) && value_of(&c[i], which) > a.ymax)
			a.ymax = value_of(&c[i], which);
	}
	a.ymax = nice_max(a.ymax * 1.05);
	fprintf(f, "<text x='%.0f' y='%d' font-size='15' text-anchor='middle'>%s (%s)</text>\n",
		x0 + PW / 2.0, MT - 20, title, sqk_workload_name(wl));
	fprintf(f, "<rect x='%d' y='%d' width='%d' height='%d' fill='none' stroke='#888'/>\n", x0,
		MT, PW, PH);
	for (t = 0; t <= 4; t++) {
		double v = a.ymax * t / 4;

		fprintf(f,
			"<line x1='%d' x2='%d' y1='%.1f' y2='%.1f' stroke='#ddd'/>"
			"<text x='%d' y='%.1f' font-size='11' text-anchor='end'>%g</text>\n",
			x0, x0 + PW, py(&a, v), py(&a, v), x0 - 6, py(&a, v) + 4, v);
	}
	/* Each thread count once along the axis. */
	for (i = 0; i < n; i++) {
		for (j = 0; j < i && !(c[j].workload == wl && c[j].threads == c[i].threads); j++)
			;
		if (c[i].workload == wl && j == i)
			fprintf(f,
				"<text x='%.1f' y='%d' font-size='11' "
				"text-anchor='middle'>%u</text>\n",
				px(&a, c[i].threads, which), MT + PH + 16, c[i].threads);
	}
	fprintf(f, "<text x='%.0f' y='%d' font-size='12' text-anchor='middle'>threads</text>\n",
		x0 + PW / 2.0, MT + PH + 34);
	for (where = 0; where < WHERE_COUNT; where++) {
		for (p = 0; p < (where == WHERE_KERNEL ? 1u : 3u); p++) {
			int first = 1;

			/* A line only for a series that has points in this panel. */
			for (i = 0; i < n; i++) {
				if (!in_series(&c[i], wl, where, p) ||
				    isnan(value_of(&c[i], which)))
					continue;
				if (first)
					fprintf(f,
						"<polyline fill='none' stroke='%s' "
						"stroke-width='2.5'%s points='",
						colour_of(where, p), dash_of(where));
				fprintf(f, "%s%.1f,%.1f", first ? "" : " ",
					px(&a, c[i].threads, which),
					py(&a, value_of(&c[i], which)));
				first = 0;
			}
			if (!first)
				fprintf(f, "'/>\n");
			for (i = 0; i < n; i++)
				if (in_series(&c[i], wl, where, p) &&
				    !isnan(value_of(&c[i], which)))
					fprintf(f,
						"<circle cx='%.1f' cy='%.1f' r='3.5' fill='%s'/>\n",
						px(&a, c[i].threads, which),
						py(&a, value_of(&c[i], which)),
						colour_of(where, p));
		}
	}
}

int cli_bench_plot(const char *path, const struct bench_cell *cells, unsigned n)
{
	enum sqk_workload seen[SQK_WL_COUNT];
	unsigned nw = 0, i, j, w, p, where, items = 0;
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
	/* A legend entry for every line drawn. */
	for (where = 0; where < WHERE_COUNT; where++) {
		for (p = 0; p < (where == WHERE_KERNEL ? 1u : 3u); p++) {
			for (i = 0; i < n && !in_series(&cells[i], cells[i].workload, where, p);
			     i++)
				;
			if (i == n)
				continue;
			fprintf(f,
				"<line x1='%u' x2='%u' y1='%d' y2='%d' stroke='%s' "
				"stroke-width='3'%s/><text x='%u' y='%d' "
				"font-size='13'>%s%s%s</text>\n",
				ML + items * 150, ML + items * 150 + 18, height - 20, height - 20,
				colour_of(where, p), dash_of(where), ML + items * 150 + 24,
				height - 16,
				where == WHERE_MODEL ? "" : cli_bench_where_name(where),
				where == WHERE_MOUNT ? " " : "",
				where == WHERE_KERNEL ? ""
						      : sqk_policy_name((enum sqk_wait_policy)p));
			items++;
		}
	}
	fprintf(f, "</svg>\n");
	return fclose(f) == 0 ? 0 : -1;
}
