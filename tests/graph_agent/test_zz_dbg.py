import shutil
from biokg.ingest.offline.go_corpus import GOSLIM_PLANT, ORG_HS_DB, debian_file, write_gaf
from biokg.ingest.build import build
from biokg.graph_agent.agent import GraphAgent
from biokg.graph_agent import evaluation

def test_dbg(agent_graph, settings, test_data_cache, tmp_path):
    shutil.copy(debian_file(*GOSLIM_PLANT, test_data_cache), tmp_path / "go-basic.obo")
    write_gaf(debian_file(*ORG_HS_DB, test_data_cache), tmp_path / "goa_human.gaf", slice_genes=60)
    build(agent_graph, settings, ("go",), data_dir=tmp_path, sample=True)
    agent = GraphAgent.connect(agent_graph, settings)
    qs = evaluation.generate(agent, per_relation=2, seed=3)
    for q in qs:
        if q.kind == "unanswerable":
            a = agent.ask(q.text)
            print("Q", q.text, a.status, [n.id for n in a.answers[:3]])
    a = agent.ask("What sections does abscission have?")
    print("X", a.status, [n.id for n in a.answers[:3]])
    print(a.to_dict() if hasattr(a, "to_dict") else a)
