"""``python -m service train MODEL``: fit a model on the dev corpus and export it to the model store.

Each trainable backend has a module ``service.training.<name>`` with
``add_arguments(parser)`` and ``train(args) -> int``. Those modules import
the heavy training dependencies (the ``train`` extra) inside ``train`` only,
so building this parser stays cheap.
"""

from __future__ import annotations

import argparse
import importlib

from service.arguments import input_folder, output_folder
from service.commands.help import HelpFormatter, plain
from service.paths import MODEL_STORE, default_data_dir

# model name -> trainer module; a backend appears here when its trainer lands.
TRAINERS: dict[str, str] = {
    "bilstm": "service.training.bilstm",
    "bilstm_int8": "service.training.bilstm_int8",
    "svm": "service.training.svm",
    "mlp": "service.training.mlp",
    "gbt": "service.training.gbt",
    "ensemble": "service.training.ensemble",
    "page_type": "service.training.page_type",
}
DEFAULT_SEED = 20261121


def add_arguments(parser: argparse.ArgumentParser) -> None:
    models = parser.add_subparsers(dest="model", required=True, metavar="MODEL")
    for name, module in TRAINERS.items():
        trainer_module = importlib.import_module(module)
        trainer = models.add_parser(
            name,
            help=f"train the {name} backend",
            description=plain(trainer_module.__doc__),
            formatter_class=HelpFormatter,
        )
        trainer.add_argument(
            "--data", type=input_folder, default=None, help="corpus directory (default: the WCXB dev pages)"
        )
        trainer.add_argument(
            "--out", type=output_folder, default=MODEL_STORE, help="model store (default: model_store/)"
        )
        trainer.add_argument("--seed", type=int, default=DEFAULT_SEED, help="random seed")
        trainer_module.add_arguments(trainer)


def run(args: argparse.Namespace) -> int:
    args.data = args.data or default_data_dir()
    return int(importlib.import_module(TRAINERS[args.model]).train(args))
