"""The offline web the demo and the tests run on.

Everything under this package is synthetic: Arabic rumours, fact-check posts, Reuters-style
headlines and news articles written for AraStance Pipeline (``snapshots.world``), and the
renderers and local server that publish them as HTML on 127.0.0.1.
"""
