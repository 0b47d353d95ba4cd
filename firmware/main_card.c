// SPDX-License-Identifier: MIT
/* The card build's entry point (crt0.S calls main). */
#include "fw.h"

int main(void);

int main(void)
{
	static struct quire_fw fw;
	quire_fw_run(&fw);
	return 0;
}
