"""`simkit serve`: a local web page for combat odds (Starlette + uvicorn, assets vendored).

simkit.serve.calc parses and bounds a query and answers it from the warm engine;
simkit.serve.app is the ASGI application (Host header check, token, the page and its API);
static/ holds the page's own script and stylesheet (no CDN, no build step).
"""
