"""The command line's help says what the commands really do: defaults, every command, plain text."""

from __future__ import annotations

import pytest

from service.cli import COMMANDS, main
from service.pipeline import default_extractor
from service.settings import DEFAULT_BACKEND
from service.training.command import DEFAULT_SEED, TRAINERS


def help_of(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as exited:
        main([*argv, "--help"])
    assert exited.value.code == 0
    return capsys.readouterr().out


def test_the_top_level_help_lists_every_command_in_plain_text(capsys: pytest.CaptureFixture[str]) -> None:
    text = help_of(capsys)
    assert "``" not in text
    for name in COMMANDS:
        assert f"    {name} " in text


def test_extract_names_the_real_default_backend(capsys: pytest.CaptureFixture[str]) -> None:
    assert f"(default: EXTRACT_DEFAULT_BACKEND, else {DEFAULT_BACKEND})" in " ".join(help_of(capsys, "extract").split())


def test_the_python_api_and_the_cli_obey_extract_default_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    """As the server does: the setting names the backend a call without ``backend`` gets."""
    monkeypatch.setenv("EXTRACT_DEFAULT_BACKEND", "boilerpipe")
    default_extractor.cache_clear()
    try:
        assert default_extractor().default_backend == "boilerpipe"
    finally:
        default_extractor.cache_clear()


@pytest.mark.parametrize("model", list(TRAINERS))
def test_every_trainer_has_a_description_and_its_defaults(capsys: pytest.CaptureFixture[str], model: str) -> None:
    text = help_of(capsys, "train", model)
    description = text.split("\n\n")[1]
    assert model in description and not description.startswith("options")
    assert "``" not in text
    assert f"(default: {DEFAULT_SEED})" in text
