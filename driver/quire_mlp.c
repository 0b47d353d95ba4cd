// SPDX-License-Identifier: GPL-2.0
/*
 * The MLP model the card holds, as far as the span checks need it. MLP_SCORE makes
 * the card read count * width[0] bytes of features, width[0] being the input width of
 * the model it has loaded, so the driver must know that width to check the features'
 * buffer. Every model the card loads comes through here (one ring, in order), so the
 * driver keeps the width of the last MLP_LOAD it posted: the card's firmware takes
 * width[0] of the image it loads, and a failed load leaves no model (width 0).
 *
 * The card reads the image when it runs the load, after the submission: an image in
 * a user's buffer object could change in between. So the driver loads a copy of its
 * own, in coherent DMA memory, whose width it has read; the copy lives until the load
 * completes. Until the first load the driver posts, and after a RESET (a load in
 * flight may or may not have run), the width is unknown: the widest is assumed.
 */
#include <linux/dma-mapping.h>

#include "quire_drv.h"
#include "quire/mlp.h"

/* Under qdev->mlp_lock: the input width MLP_SCOREs posted now will meet. */
u32 quire_mlp_width(struct quire_device *qdev)
{
	lockdep_assert_held(&qdev->mlp_lock);
	return qdev->mlp_width0;
}

/* Under qdev->mlp_lock: the width is not known (first use, RESET). */
void quire_mlp_forget(struct quire_device *qdev)
{
	qdev->mlp_width0 = QUIRE_MLP_MAX_WIDTH;
}

/*
 * A checked MLP_LOAD: copy its image (cmd.count bytes at offset of its source
 * object) into memory of the driver's own and point the descriptor there.
 */
int quire_mlp_snapshot(struct quire_device *qdev, struct quire_job *job, u64 offset)
{
	struct device *dev = &qdev->pdev->dev;
	u32 bytes = le32_to_cpu(job->cmd.count);
	u8 *image;
	int ret;

	image = dma_alloc_coherent(dev, bytes, &job->model_dma, GFP_KERNEL);
	if (!image)
		return -ENOMEM;
	ret = quire_bo_read(qdev, job->bos[QUIRE_DRM_BUF_SRC], offset, image, bytes);
	if (ret) {
		dma_free_coherent(dev, bytes, image, job->model_dma);
		return ret;
	}
	job->model = image;
	job->model_bytes = bytes;
	job->model_width0 = image[QUIRE_MLP_HDR_WIDTH] | image[QUIRE_MLP_HDR_WIDTH + 1] << 8;
	job->cmd.src = cpu_to_le64(job->model_dma);
	return 0;
}

/* Under qdev->mlp_lock, once the load is posted: SCOREs from now on meet its model. */
void quire_mlp_posted(struct quire_device *qdev, struct quire_job *job)
{
	lockdep_assert_held(&qdev->mlp_lock);
	qdev->mlp_width0 = job->model_width0;
}

/* The load has completed (or never reached the card): the card is done with the copy. */
void quire_mlp_release(struct quire_job *job)
{
	if (!job->model)
		return;
	dma_free_coherent(&job->qdev->pdev->dev, job->model_bytes, job->model, job->model_dma);
	job->model = NULL;
}
