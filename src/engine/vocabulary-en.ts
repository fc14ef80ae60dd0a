// English words for the local engine, each list ranked roughly by frequency (most common first).
import { type Vocabulary, wordList } from './vocabulary.ts';

export const VOCABULARY_EN: Vocabulary = {
  functionWords: wordList(`
    the of and to a in that it for on with as at by this from or an but not they we you he she
    his her their our your its which who what when where there here all some any more most no so
    if than then also just only can will would could should may might must do does did have has
    had is are was were be been these those each every other such both either into over about
    after before through under between during without within while because until since against
    among around toward upon nor yet though whether whose whom us them him me my one two three
  `),
  contentWords: wordList(`
    time people year way day thing world life hand part child eye woman place work week case
    point company number group problem fact make know think take see come want look use find
    give tell call try ask need feel become leave good new first last long great little old
    right big high different small large next early young important public bad same able
    home water room mother area money story month lot study book job word business issue side
    kind head house service friend father power hour game line end member law car city name
    president team minute idea kid body information back parent face level office door health
    person art war history party result change morning reason research girl guy moment air
    teacher force education foot boy age policy process music market sense nation plan college
    interest death experience effect class control field development role effort rate heart
    drug show leader light voice wife police mind price report decision son view relationship
    town road arm difference value building action model season society tax director position
    player record paper space ground form event matter center couple site project activity star
    table court oil situation cost industry figure street image phone data picture practice
    piece land product doctor wall patient worker news test movie north support technology
    step baby computer type attention film tree source organization hair window evidence
    population truth song energy garden river ocean mountain island summer winter spring autumn
    evening night weather coffee bread dinner lunch breakfast language question answer
    bring happen write provide sit stand lose pay meet include continue set learn lead
    understand watch follow stop create speak read allow add spend grow open walk win offer
    remember love consider appear buy wait serve send expect build stay fall reach remain
    suggest raise pass sell require decide explain hope develop carry break receive agree
    return travel discover share enjoy choose prepare improve protect imagine notice describe
    clear simple possible free real whole certain strong special easy hard recent late human
    local social national natural physical personal common similar available popular basic
    happy quiet bright warm cold fresh green blue red white dark deep wide quick slow gentle
    careful beautiful modern ancient curious honest useful famous rich safe strange wild
    always often never sometimes usually really already still again today tomorrow yesterday
    soon later together perhaps quickly slowly finally simply certainly clearly probably
    almost nearly rather quite enough away forward everywhere somewhere outside inside
  `),
};
