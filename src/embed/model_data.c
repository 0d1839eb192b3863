/* model_data.c — the code model compiled into the binary: the bytes of
 * model/memgate-code.mgm (made by `make model`, committed with its
 * provenance in model/PROVENANCE.md), checked like any model file when first
 * used (model.c). */
__asm__(".section .rodata\n"
        ".global mg_model_data\n"
        ".global mg_model_data_end\n"
        ".balign 64\n"
        "mg_model_data:\n"
        ".incbin \"model/memgate-code.mgm\"\n"
        "mg_model_data_end:\n"
        ".byte 0\n"
        ".previous\n");
