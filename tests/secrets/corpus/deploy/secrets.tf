resource "kubernetes_secret" "ml" {
  metadata { name = "ml" }
  binary_data = {
    OPENAI = "c2stcHJvai13RWIzb2lBS0J2aVVONVJNWGxVbXFvTkVSX0FUY1VHcUNVWnEtdEU2TmJPRENxa0x5Sk54T2M4Wm5VamMxUWYw"
    MODEL_CARD = "bW9kZWw6IGdwdC00by1taW5pCnRlbXBlcmF0dXJlOiAwLjIKbWF4X3Rva2VuczogMTAyNAo="
    WEIGHTS_SHA = "2wdQBPhpt0FKYwpC1sWW+Am6L2HfCFUaQvuM2LGfslU="
  }
}
