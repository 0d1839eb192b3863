provider "azurerm" {
  features {}
  client_secret   = "ks66Q~warQd_m8.3aHAh7-tTftx9~aG~9aAaeRA0"
  subscription_id = "2c315fc4-005a-3d17-6c72-b0790950996c"
}

resource "azurerm_app_service" "api" {
  app_settings = {
    STORAGE = "DefaultEndpointsProtocol=https;AccountName=apistore;AccountKey=tt1YwVdVnX0qpJcxByWRgXLtCNY9NiWQRs+O0CH11kOsmSrp5me1uUNMmCMdL1rJNveG7b53fyIJ9rY//gAOnx==;EndpointSuffix=core.windows.net"
    BUS = "Endpoint=sb://api-bus.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=TanZdzUgHDoAMLQlrEwWwWt3BwMSUi2XBX9i9uV9Ufm="
    BLOB_SAS = "https://apistore.blob.core.windows.net/exports?sv=2022-11-02&ss=b&srt=sco&sp=rl&se=2030-01-01T00:00:00Z&sig=RTBdmAOYtaBqsiHcrl5d7X7xIR/MVCQ0EorgQKIqJWM%3D"
    APPCONFIG = "Endpoint=https://api-cfg.azconfig.io;Id=Ab12-l0-s0:tc2a12dhucG6PDrxEmrd;Secret=sZkcyDsR0iowzfTZpvXX5E6R0NRvZZHYRiRM9BMi/DT="
    SQL = "Server=tcp:api-sql.database.windows.net,1433;Initial Catalog=api;User ID=apiadmin;Password=!CN0H20lDDfVZn3#eJ;Encrypt=True"
    AZURE_STORAGE_KEY = "/Y9+qTu7cRaCY3RRqBX0DuwkyBwlZr4U1DIQ4HfP6r8QQO23GRnDYhi4kOCbLiws4pCXrAlM8cB9RncsnUZ7OE=="
    AZURE_DEVOPS_PAT = "avu2cpmbsjlq6gu6bmwenziwfyhd23m3sbx2xf2jm57igf5aaugs"
  }
}

provider "digitalocean" {
  token = "dop_v1_cd64f7e6c54d66c0ed5dff13099a91a97c18e1eb99c6c98f71157fc80ac5b53a"
}
locals { do_oauth = "doo_v1_27eded9e1a634c38e368e956244d56ae4661acb7d4402c0265f381fc67c685df" }
locals { do_refresh = "dor_v1_84225a8410d78faa9d67916913a62c15de50abe72c587bf8f16714bab5c39b45" }
variable "spaces_secret_key" { default = "nUS6R9tJFIA4BKpmI28xxQ00rtr2Zh3tRMzBtL2zfic" }
provider "cloudflare" {
  cloudflare_api_token = "YLBsgUIqOJTlEvGQ8q6glD7NHA-N6GAurDeEqdo5"
}
variable "cloudflare_api_key" { default = "4483b9347baf164ceed5bdb5418a138789a37" }
variable "origin_ca" { default = "v1.0-7d1f1bf4b82b1ed15f7d4f90-edff94246414242b35f22c331a6778360a3696044532edeb68df302f13c9452d0467e6139345bf5297f6a5a4cea45a85772c330a2e5c567a85259ab6a4827ee0b490e1f0b0ea0f0fad" }
variable "fastly_api_key" { default = "c9Ey2XEGJ1HZ7i4KUP0bC51vXSJHMiph" }
variable "heroku_api_key" { default = "88e02716-ccfe-4bdf-6ef7-ff11d0cef370" }
variable "heroku_token" { default = "HRKU-AAdREgvwZhLQ5rrYxu7WdlRHXBQPPbuUuQVop1dZ2hIfmSpy2Fl8-mVqcADA" }
variable "datadog_api_key" { default = "5ff06ca8f33b099dee624641c0bc052f" }
variable "datadog_app_key" { default = "96fb81a9ea0668595c6fd8007c6247402ec95dde" }
variable "newrelic_api_key" { default = "NRAK-7UQWFW1KB2B1GUFWJXBI2SZ2BAO" }
variable "nr_insert" { default = "NRII-DXFCAG3dlbaczk4vmQcoZRryh9J9K70w" }
variable "nr_license" { default = "afb793224efec8aff275e04dc04ef20b5bd1NRAL" }
variable "nr_browser" { default = "NRJS-c33954ddfee6097a7dd" }
variable "tfc_token" { default = "LhHCPdVAuxx9dH.atlasv1.im5ncMc38P2jXLgLlnK0UWd6dbwoNp6ja9_uLP7IxMoTHh5dRSQF2QquaInfri3SiDA" }
variable "pulumi" { default = "pul-0d9a79ffd7b4333e1cfea138798701d6e7368527" }
variable "vault" { default = "hvs.kRp1mjmgeZoKj7J47lDjYKvC36IaREaIXMHdkEZf46_zANr-VlCWi7xRbAw8HJrZIoyYv79FK-ApICJFW5mfJPOQ3xwACl3" }
variable "vault_batch" { default = "hvb.YQt7X4gFmzpm5NU5IK5jciGbnslRC8ndgUWzP5PRFTqUoikQruZDjr7KTovPICW6qK3Sto0PMix357WYBMT7hROh43b2He0_qccI0p0NA1ifN_w5c7CBHhwViMY46eOUxirXYamWQcl_bwmPAA8VKn" }
variable "vault_token" { default = "s.bbYkcABTjOLVnGNgmwGd71X0" }
variable "doppler" { default = "dp.st.prd.y7CGNLZvAMuDqdKBoSVzCFhSaiBPMD2WoDhGjurP" }
variable "ali_id" { default = "LTAISlfjsydgxoFV30A5HfE7" }
variable "alicloud_secret_key" { default = "aI5DlpDgbGPFU67sXcr1sIQj1ukMJ5" }
variable "tencent_id" { default = "AKID47y3Zp9UgaLpku1WggisIn930894jNU3" }
variable "ibmcloud_api_key" { default = "G9TyXhhoME4VF6eyaXVJOyS0H0NsocTnJV2sATKknt8e" }
variable "yc_key" { default = "AQVNZPNNjO8evjtblHTj80K1mCy7SQc9iHRPJtkm" }
variable "linode_token" { default = "cb480675930060bca3eef06d39e6f5e23cc7e3866ac5e26272c33a9b955ea41b" }
variable "hcloud_token" { default = "v6AncvBhbqQtPTggL2qXAr2f4iDts1EKSV05jBbeq0oMCf3EKluYwhqYXivSSDCV" }
variable "vultr_api_key" { default = "WOYRT3K5OGNZQIFWERJ6UHC190B4RPP4ELO4" }
variable "netlify" { default = "nfp_Sr2fPqoXF7kd5ye2kIXNU1wIMCTeSZi59oqm" }
variable "vercel_token" { default = "yDySUERoTF4xdflmefpR2QWJ" }
variable "render" { default = "rnd_5qEbM8fBGTG9ZVzUI3GSgvKL2wnCdhHe" }
variable "railway_token" { default = "5f29cc8a-7d34-301e-4890-ee8e8431c19c" }
variable "scalingo" { default = "tk-us-GyMRo5hTPhlNI83Jj0lcnPycEh3awWe4ILVlhe7U4M7MxrS_" }
variable "fly" { default = "fo1_z7lsT8-oqs72VD8sDSioNmyu8uLqSlBd4dh1pqt9bCI" }
variable "splunk_hec_token" { default = "18b0d225-4acc-8275-c82e-f0ed5789b7fe" }
variable "pagerduty_token" { default = "u+4xB4bI5JcD9hEw6xTV" }
variable "opsgenie_api_key" { default = "614a166b-c6e7-d372-abe3-447c12440c51" }
variable "honeycomb_api_key" { default = "NTyaSRhksxt5JOXiRDfyx7" }
variable "dynatrace" { default = "dt0c01.Z8IX8019LN6N52E446EOVWXD.MGQDB7C9TV2Q4W08FYX85GLG132H6UJGKKZPFJGL394MZPPJ6G3I8VEL7I4RSM4R" }
variable "grafana" { default = "glc_KDDY8i6QHoJqny9h4ZuQqva9xNOvCgMpJQVZVf8POMAdA2DpwVAXlRqLcPpg" }
variable "grafana_sa" { default = "glsa_te7H9Zs4n1lEXi5EZMlkNz8mDp9cbNvJ_b509fea2" }
variable "grafana_key" { default = "eyJrIjoiPsegMpfxHn2xgNTjm5fmfD7mplgOanasubKnfPpe0Y4FJYMqxORdkGoyW0fjvy9Do7RAtGCMuGcSdFxM" }
variable "sentry_auth_token" { default = "81bff13b62dcfed07388f75c047f87a371a2bb64e5c24381fa0312566f4270aa" }
variable "snyk_token" { default = "20bd07a7-a55d-03fe-4388-e2f8c4c40f3f" }
variable "codecov_token" { default = "4e1fd80a-765c-0790-2089-89405ea19f6f" }
variable "circleci_token" { default = "4d4f12a2db4038cdd203a5b14eeb6a7d9f8ae2b0" }
variable "travis_token" { default = "_kuL2KCpicYOmxhckBHzsx" }
variable "hex_api_key" { default = "da3bb9a318367c6caf51f31b16a6f419" }
variable "oc_token" { default = "sha256~CkLmOf3MmJEUrxnrIFOzJ_TADvu-jscoztzZeC6O-F3" }
variable "op_secret" { default = "A3-5M8F01-NY01LLIBMCK-SF7NJ-5UU7P-C4461" }
variable "infisical" { default = "st.6c9f667394a3c516095a80f4.3443966b575c767b60a015f7929a2ed8.572389dcf62969a0835b76e7c16bc432" }
variable "sops_age" { default = "AGE-SECRET-KEY-1YSFM3QK6E3GNMSAPTQAFCVZJYJTQQA9DEGPXQ3F20LFWCRGQGVQ5T3C9Q9" }

# negatives
variable "db_password" { sensitive = true }
variable "api_token" { default = var.token }
resource "random_password" "db" { length = 32 }
output "uuid" { value = "e536515e-d411-cc84-a139-58f14c2dd7d2" }
