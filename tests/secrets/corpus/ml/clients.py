from openai import OpenAI
import anthropic

client = OpenAI(api_key="sk-proj-PtBpHSJcxCID5PS8yZMfEFONeWhMUvlZ3R5MfrRn0__uouOl4s9h3tJgB0rgwE4pepV2XALAiuNX260QLaWalm0B-PjHmsqmKGvJX_TVFu4ongplOBJZGxGyianZ5h0efMmF3C8XBZIUoo4UIOrXlFyfDNGx")
legacy = OpenAI(api_key="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")
svc = OpenAI(api_key="sk-svcacct-uyeBj4ikc47VeglxlM6LYB1cytNlrzRQ2K-jymSFOZRO7Ojl6Pxzr8mNXi7F743IfVSk7OOQq3")
admin = OpenAI(api_key="sk-admin-OkKT_ovhEZDUQuu2zzltM-bRoDiP0LGz85BeCpRFFTLqly1XJCfi2v1EDKXNmsVBTdkpHSy21m")
claude = anthropic.Anthropic(api_key="sk-ant-api03-rrFvcb0NPqDyAtk8x6s10GEWOvIg6K2UbW7JqOqglEoJHiLN0SEy7EsxBV77mWVgzMI5qX2A99gAz9exHWMZk_QANoz38AA")
ANTHROPIC_ADMIN = "sk-ant-admin01-hgGqgU_-u90-oPBt8ZaYhwrXZmd6pS3NPmiD6bREQYFmByoRXBA892qfUL9hvgFq_NO5TtFtr8duhYw0HvKHm7YJ5SeVEAA"
oauth = "sk-ant-oat01-RiPot5dYHOxAjhPHKBKI24Trq2l29lt4IfCvnfVmJrO8qs0IREtMcst-m8XSCeRQ2xLwPDu33_wSQwfTshPo5HRcHFSf1au"
HF_TOKEN = "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"
HF_ORG = "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"
GROQ_API_KEY = "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"
REPLICATE_API_TOKEN = "r8_c5JrE8XELMIBXvOu2QeKjtWpj01rqoilgOSOX"
PPLX = "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"
XAI_API_KEY = "xai-GrIxKI21f3MrbW4Es5olJldZFr6sto19bAungDsgWcZ55YI5zAuTuTcimWCmw6GVoQHACQmma6WSh5VX"
LANGSMITH_API_KEY = "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"
PINECONE_API_KEY = "pcsk_FGMqoR_6QLqXGvoOYPAPkr5QKpBn7Ai6K2HlkBpXGZmrC3elWzPuL3z8XJOAsu24PO5ew7E"
COHERE_API_KEY = "ypR6u8JjnnMvrPIYadWFWfm0SjJMTmVwZbqrCTC3"
MISTRAL_API_KEY = "feInLdgJCNegFHk9DBrLk6GOATXWhQvs"
DEEPSEEK_API_KEY = "sk-7912c0a077dc85bd8f251a576b24c32a"

# negatives
model = "gpt-4o-mini"
embedding_model = "text-embedding-3-small"
api_key = os.getenv('OPENAI_API_KEY')
OPENAI_API_KEY = "sk-..."
ANTHROPIC_API_KEY = "sk-ant-api03-..."
max_tokens = 1024
def tokenize(text): return text.split()
