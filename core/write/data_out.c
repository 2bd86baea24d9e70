// SPDX-License-Identifier: BSD-2-Clause
/*
 * The data's output: a small write buffer in front of the file. Dedup
 * reads placed bytes back and rewinds over a file found again, so the
 * buffer can be flushed before a read and cut back to any position.
 */
#include "data_int.h"

int sqk_dw_out_flush(struct sqk_data_writer *dw)
{
	int err = 0;

	if (dw->obuf_len)
		err = dw->out->write_at(dw->out, dw->obuf_start, dw->obuf, dw->obuf_len);
	dw->obuf_start += dw->obuf_len;
	dw->obuf_len = 0;
	return err;
}

int sqk_dw_out_write(struct sqk_data_writer *dw, const uint8_t *p, uint32_t n)
{
	int err;

	if (n >= OBUF_SIZE / 8) {
		err = sqk_dw_out_flush(dw);
		if (!err)
			err = dw->out->write_at(dw->out, dw->obuf_start, p, n);
		dw->obuf_start += n;
		return err;
	}
	if (dw->obuf_len + n > OBUF_SIZE) {
		err = sqk_dw_out_flush(dw);
		if (err)
			return err;
	}
	memcpy(dw->obuf + dw->obuf_len, p, n);
	dw->obuf_len += n;
	return 0;
}

void sqk_dw_out_rewind(struct sqk_data_writer *dw, uint64_t pos)
{
	if (pos >= dw->obuf_start) {
		dw->obuf_len = (uint32_t)(pos - dw->obuf_start);
		return;
	}
	dw->obuf_len = 0;
	dw->obuf_start = pos;
}

int sqk_dw_out_read(struct sqk_data_writer *dw, uint64_t off, uint8_t *buf, size_t n)
{
	int err = sqk_dw_out_flush(dw);

	return err ? err : dw->out->read_at(dw->out, off, buf, n);
}
