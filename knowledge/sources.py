"""Where a figure in the data comes from: one model of a source for every data file.

Every shipped figure points at a page a reader can open. Files differ only in what they must say about it:
a card cites a title (a date when it has one), a price anchor or a default also says what the page says and
when. The differences are required fields of one model, not six models with their own URL and date rules.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

DATE_PATTERN = r"^\d{4}(-\d{2}){0,2}$"  # YYYY, YYYY-MM or YYYY-MM-DD: as precise as the page is


class Source(BaseModel):
    """A page a reader can open, and what it says that supports the figure."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    url: str = Field(pattern=r"^https?://\S+$", description="A page a reader can open.")
    title: str = Field("", description="The page's title, as a citation shows it.")
    says: str = Field("", description="What the page says that supports the figure.")
    date: str | None = Field(None, pattern=DATE_PATTERN, description="When the figure was published, applied or fetched.")

    @property
    def cited(self) -> str:
        """The title as a citation shows it: with its date when it has one."""
        return f"{self.title} ({self.date})" if self.date else self.title


class TitledSource(Source):
    """A source cited by its title (cards, catalog capabilities, servers, facility figures)."""

    title: str = Field(min_length=3, description="The page's title, as a citation shows it.")


class DatedSource(TitledSource):
    """A titled source whose date the answer shows, so a reader can tell how current the figure is."""

    date: str = Field(pattern=DATE_PATTERN, description="When the figure was published, applied or fetched.")


class QuotedSource(TitledSource):
    """A titled source that also says what on the page supports the figure."""

    says: str = Field(min_length=3, description="What the page says that supports the figure.")


class DatedQuote(Source):
    """A source for a default value: what the page says and when, title optional."""

    says: str = Field(min_length=3, description="What the page says that supports the value.")
    date: str = Field(pattern=DATE_PATTERN, description="When the figure was published or fetched.")
