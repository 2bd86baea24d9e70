// SPDX-License-Identifier: BSD-2-Clause
/* What an image holds and how it is stored: the survey `squashkit inspect` prints. */
#include <stdlib.h>

#include "api_int.h"
#include "format/fmt_type.h"
#include "walk/survey.h"

struct sqk_survey *sqk_survey_create(void)
{
	struct sqk_survey *s = calloc(1, sizeof(*s));

	if (!s)
		sqk_api_fail(SQK_ERR_NOMEM, 0, NULL, NULL);
	else
		sqk_api_ok();
	return s;
}

void sqk_survey_destroy(struct sqk_survey *s)
{
	free(s);
}

int sqk_image_survey(struct sqk_image *img, struct sqk_survey *s)
{
	int err = sqk_survey(img, s);

	if (err)
		return sqk_api_fail(err, sqk_api_io_errnum(img, err), s->err_where, NULL);
	return sqk_api_ok();
}

const char *sqk_survey_failed_at(const struct sqk_survey *s)
{
	return s->err_where;
}

const struct sqk_survey_figures *sqk_survey_figures(const struct sqk_survey *s)
{
	return &s->f;
}

const struct sqk_survey_table *sqk_survey_table(const struct sqk_survey *s,
						enum sqk_table_kind kind)
{
	if ((unsigned)kind >= SQK_TABLE_COUNT || !s->present[kind])
		return NULL;
	return &s->t[kind];
}

const char *sqk_survey_type_name(unsigned i)
{
	return i && i < SQK_FMT_BASIC_TYPES ? sqk_fmt_type_plural(i) : NULL;
}
